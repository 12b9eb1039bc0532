package dev.inference.retry.springai.anthropic;

import com.anthropic.client.AnthropicClientAsyncImpl;
import com.anthropic.client.AnthropicClientImpl;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.support.ModelRetryPostProcessor;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Retries every {@link AnthropicChatModel} bean beneath the bean, on the official Anthropic Java SDK;
 * imported by the auto-configuration (see {@link AnthropicProvider}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ AnthropicChatModel.class, AnthropicClientImpl.class, AnthropicClientAsyncImpl.class })
@ImportRuntimeHints(AnthropicRetryRuntimeHints.class)
class AnthropicRetryConfiguration {

    @Bean
    static ModelRetryPostProcessor<AnthropicChatModel> inferenceRetryAnthropicChatModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        return new ModelRetryPostProcessor<>(AnthropicChatModel.class, AnthropicChatModelRebuild::isRetried,
                AnthropicChatModelRebuild::rebuild, retriers, timer);
    }
}
