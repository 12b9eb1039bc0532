package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.proxy.ChatModelProxyRetryPostProcessor;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * retries Spring AI models: each chat or embedding model of a {@linkplain SpringAiProviders provider the
 * starter knows} beneath its bean, in its own HTTP exchange, by the provider's configuration; an
 * application's own chat model above its exchange, by a proxy of its class (see
 * {@link ChatModelProxyRetryPostProcessor}), which refuses a chat model of Spring AI's own that no
 * provider retries.
 *
 * <p>Active when Spring AI is on the class path, a {@link ModelRetriers} bean exists (the
 * application's {@code inference.retry.*} settings provide one, see
 * {@link SpringAiModelRetriersAutoConfiguration}), and {@code inference.retry.spring-ai.enabled}
 * is not {@code false}. A provider's configuration carries its own class conditions: without the
 * provider's model on the class path, nothing of that provider is loaded.
 */
@AutoConfiguration(after = SpringAiModelRetriersAutoConfiguration.class)
@ConditionalOnClass(ChatModel.class)
@ConditionalOnBooleanProperty(name = "inference.retry.spring-ai.enabled", matchIfMissing = true)
@ConditionalOnBean(ModelRetriers.class)
@Import(SpringAiProviders.Configurations.class)
public final class SpringAiRetryAutoConfiguration {

    /**
     * The timer of the waits of every retried model, stopped when the application context closes: the
     * one the retry auto-configuration gives every retried bean, made here only without it.
     */
    @Bean
    @ConditionalOnMissingBean
    RetryTimer inferenceRetrySpringAiTimer() {
        return new RetryTimer();
    }

    /**
     * The application's own chat models: retried above their HTTP exchange, by a proxy of their class.
     */
    @Configuration(proxyBeanMethods = false)
    static class OtherChatModels {

        @Bean
        static ChatModelProxyRetryPostProcessor inferenceRetryChatModelProxyPostProcessor(
                ObjectProvider<ModelRetriers> retriers, ObjectProvider<ChatModelFailureTranslator> translators) {
            return new ChatModelProxyRetryPostProcessor(retriers, translators, SpringAiProviders.ALL);
        }
    }
}
