package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.autoconfigure.fallback.InferenceRetryFallbackAutoConfiguration;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.fallback.ChatModelChains;
import dev.inference.retry.springai.proxy.ChatModelFailureTranslators;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * factory of fallback chains whose members are Spring AI chat models. A member's failure is typed by
 * the same translators that type the failures of the chat models this module retries (the SDKs'
 * exceptions, Spring's HTTP clients', the application's {@link ChatModelFailureTranslator} beans), so
 * that, say, OpenAI's {@code insufficient_quota} falls over as a quota.
 */
@AutoConfiguration(after = InferenceRetryFallbackAutoConfiguration.class)
@ConditionalOnClass(ChatModel.class)
@ConditionalOnBean(FallbackChains.class)
public final class SpringAiFallbackAutoConfiguration {

    @Bean(ChatModelChains.BEAN_NAME)
    ChatModelChains inferenceRetryChatModelChains(BeanFactory beanFactory, FallbackChains chains,
            ObjectProvider<ChatModelFailureTranslator> translators) {
        ChatModelFailureTranslators typing = ChatModelFailureTranslators.of(translators.orderedStream().toList(),
                SpringAiProviders.ALL, beanFactory.getClass().getClassLoader());
        return new ChatModelChains(beanFactory, chains, typing::typedFailureOf);
    }
}
