package dev.inference.retry.springai.ollama;

import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.autoconfigure.RetriedBeanType;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.support.ModelRetryPostProcessor;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.retry.RetryUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * Retries every {@link OllamaChatModel} and {@link OllamaEmbeddingModel} bean beneath the bean, on
 * Spring's {@code RestClient} and {@code WebClient}; imported by the auto-configuration (see
 * {@link OllamaProvider}). Their client turns error statuses into exceptions with the application's
 * response error handler, as Spring AI's auto-configuration gives it to the {@code OllamaApi}, else
 * Spring AI's default. The embedding models are declared a {@link RetriedBeanType}, so that their beans
 * are validated, counted and listed as the chat models are.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ OllamaChatModel.class, RestClient.class, WebClient.class, Flux.class })
@ImportRuntimeHints(OllamaRetryRuntimeHints.class)
class OllamaRetryConfiguration {

    @Bean
    static ModelRetryPostProcessor<OllamaChatModel> inferenceRetryOllamaChatModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer,
            ObjectProvider<ResponseErrorHandler> errorHandler) {
        return new ModelRetryPostProcessor<>(OllamaChatModel.class,
                (model, beanName) -> OllamaChatModelRebuild.isRetried(model),
                (model, beanName, retrier, unusedTimer) -> OllamaChatModelRebuild.rebuild(model, beanName, retrier,
                        errorHandler(errorHandler)),
                retriers, timer);
    }

    @Bean
    static ModelRetryPostProcessor<OllamaEmbeddingModel> inferenceRetryOllamaEmbeddingModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer,
            ObjectProvider<ResponseErrorHandler> errorHandler) {
        return new ModelRetryPostProcessor<>(OllamaEmbeddingModel.class, OllamaEmbeddingModelRebuild::isRetried,
                (model, beanName, retrier, unusedTimer) -> OllamaEmbeddingModelRebuild.rebuild(model, beanName,
                        retrier, errorHandler(errorHandler)),
                retriers, timer);
    }

    @Bean
    RetriedBeanType inferenceRetryOllamaEmbeddingModels() {
        return RetriedBeanType.retried(OllamaEmbeddingModel.class, "EmbeddingModel");
    }

    private static ResponseErrorHandler errorHandler(ObjectProvider<ResponseErrorHandler> errorHandler) {
        return errorHandler.getIfAvailable(() -> RetryUtils.DEFAULT_RESPONSE_ERROR_HANDLER);
    }
}
