package dev.inference.retry.springai.ollama;

import dev.inference.retry.springai.ChatModelRetriers;
import dev.inference.retry.springai.exchange.RetryTimer;
import dev.inference.retry.springai.support.ModelRetryPostProcessor;
import org.springframework.ai.ollama.OllamaChatModel;
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
 * Retries every {@link OllamaChatModel} bean beneath the bean, on Spring's {@code RestClient} and
 * {@code WebClient}; imported by the auto-configuration (see {@link OllamaProvider}). Its client turns
 * error statuses into exceptions with the application's response error handler, as Spring AI's
 * auto-configuration gives it to the {@code OllamaApi}, else Spring AI's default.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ OllamaChatModel.class, RestClient.class, WebClient.class, Flux.class })
@ImportRuntimeHints(OllamaRetryRuntimeHints.class)
class OllamaRetryConfiguration {

    @Bean
    static ModelRetryPostProcessor<OllamaChatModel> inferenceRetryOllamaChatModelPostProcessor(
            ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer,
            ObjectProvider<ResponseErrorHandler> errorHandler) {
        return new ModelRetryPostProcessor<>(OllamaChatModel.class,
                (model, beanName) -> OllamaChatModelRebuild.isRetried(model),
                (model, beanName, retrier, unusedTimer) -> OllamaChatModelRebuild.rebuild(model, beanName, retrier,
                        errorHandler.getIfAvailable(() -> RetryUtils.DEFAULT_RESPONSE_ERROR_HANDLER)),
                retriers, timer);
    }
}
