package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.autoconfigure.RetriedBeanType;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.support.ModelRetryPostProcessor;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Retries every {@link OpenAiChatModel} and {@link OpenAiEmbeddingModel} bean beneath the bean, on the
 * official OpenAI Java SDK; imported by the auto-configuration (see {@link OpenAiProvider}). The
 * embedding models are declared a {@link RetriedBeanType}, so that their beans are validated, counted
 * and listed as the chat models are.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ OpenAiChatModel.class, OpenAIClientImpl.class, OpenAIClientAsyncImpl.class })
@ImportRuntimeHints(OpenAiRetryRuntimeHints.class)
class OpenAiRetryConfiguration {

    @Bean
    static ModelRetryPostProcessor<OpenAiChatModel> inferenceRetryOpenAiChatModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        return new ModelRetryPostProcessor<>(OpenAiChatModel.class, OpenAiChatModelRebuild::isRetried,
                OpenAiChatModelRebuild::rebuild, retriers, timer);
    }

    @Bean
    static ModelRetryPostProcessor<OpenAiEmbeddingModel> inferenceRetryOpenAiEmbeddingModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        return new ModelRetryPostProcessor<>(OpenAiEmbeddingModel.class, OpenAiEmbeddingModelRebuild::isRetried,
                OpenAiEmbeddingModelRebuild::rebuild, retriers, timer);
    }

    @Bean
    RetriedBeanType inferenceRetryOpenAiEmbeddingModels() {
        return RetriedBeanType.retried(OpenAiEmbeddingModel.class, "EmbeddingModel");
    }
}
