package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import dev.inference.retry.springai.ChatModelRetriers;
import dev.inference.retry.springai.exchange.RetryTimer;
import dev.inference.retry.springai.support.ChatModelRetryPostProcessor;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Retries every {@link OpenAiChatModel} bean beneath the bean, on the official OpenAI Java SDK; imported
 * by the auto-configuration (see {@link OpenAiProvider}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ OpenAiChatModel.class, OpenAIClientImpl.class, OpenAIClientAsyncImpl.class })
@ImportRuntimeHints(OpenAiRetryRuntimeHints.class)
class OpenAiRetryConfiguration {

    @Bean
    static ChatModelRetryPostProcessor<OpenAiChatModel> inferenceRetryOpenAiChatModelPostProcessor(
            ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        return new ChatModelRetryPostProcessor<>(OpenAiChatModel.class, OpenAiChatModelRebuild::isRetried,
                OpenAiChatModelRebuild::rebuild, retriers, timer);
    }
}
