package dev.inference.sample;

import dev.inference.sample.provider.FlakyProvider;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicConnectionProperties;
import org.springframework.ai.model.openai.autoconfigure.OpenAiCommonProperties;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * Wires the sample's Spring AI side: a {@link ChatClient} over the fallback chain {@code chat}, whose
 * members are the auto-configured {@link OpenAiChatModel} (the bean {@code openAiChatModel}, which the
 * retry starter retries), calling the same provider as the {@code openai} client, as the
 * auto-configured embedding model ({@code openAiEmbeddingModel}, retried too) does, and the
 * auto-configured Anthropic chat model ({@code anthropicChatModel}), its backup.
 *
 * <p>The embedded provider listens on a port chosen when it starts ({@code sample.provider.port} is 0,
 * any free port, unless set), so no configuration file can hold its address. Instead,
 * {@link ProviderBaseUrl} fills {@code spring.ai.openai.base-url} and {@code spring.ai.anthropic.base-url}
 * in when the application leaves them unset, as the models' connection properties are bound: that
 * starts the embedded provider, if it is to run, before the models are built.
 */
@Configuration(proxyBeanMethods = false)
class SpringAiConfiguration {

    @Bean
    static ProviderBaseUrl sampleProviderBaseUrl(ObjectProvider<SampleInferenceProperties> properties,
            ObjectProvider<FlakyProvider> embedded) {
        return new ProviderBaseUrl(properties, embedded);
    }

    /**
     * The chat client of {@code /ai/chat}, built by Spring AI's auto-configured builder over the primary chat
     * model: the fallback chain {@code chat} ({@code inference.retry.fallbacks.chat}).
     */
    @Bean
    ChatClient chatClient(ChatClient.Builder builder) {
        return builder.build();
    }

    /**
     * Sets the base URL of Spring AI's OpenAI connection, which both models use, to the sample's provider
     * (the embedded one, or {@code sample.inference.base-url}) with the {@code /v1} that the OpenAI SDK
     * expects, when
     * {@code spring.ai.openai.base-url} is not set. Its collaborators are resolved at the connection
     * properties' bean, so registering it initialises nothing early.
     */
    static final class ProviderBaseUrl implements BeanPostProcessor {

        private final ObjectProvider<SampleInferenceProperties> properties;

        private final ObjectProvider<FlakyProvider> embedded;

        ProviderBaseUrl(ObjectProvider<SampleInferenceProperties> properties, ObjectProvider<FlakyProvider> embedded) {
            this.properties = properties;
            this.embedded = embedded;
        }

        @Override
        public Object postProcessBeforeInitialization(Object bean, String beanName) {
            if (bean instanceof OpenAiCommonProperties connection && !StringUtils.hasText(connection.getBaseUrl())) {
                String provider = SampleConfiguration.baseUrl(this.properties.getObject(), this.embedded).toString();
                connection.setBaseUrl(provider.replaceFirst("/+$", "") + "/v1");
            }
            // The Anthropic SDK adds /v1 itself.
            if (bean instanceof AnthropicConnectionProperties connection && !StringUtils.hasText(connection.getBaseUrl())) {
                String provider = SampleConfiguration.baseUrl(this.properties.getObject(), this.embedded).toString();
                connection.setBaseUrl(provider.replaceFirst("/+$", ""));
            }
            return bean;
        }
    }
}
