package dev.inference.retry.springai;

import com.google.genai.Client;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.google.genai.autoconfigure.chat.GoogleGenAiChatAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaApiAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaEmbeddingAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiEmbeddingAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ReactorClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Each provider's real Spring AI 2.0.1 chat (and embedding) auto-configuration, as an application gets it from the
 * provider's starter, with this module's retry auto-configuration, pointed at a provider root on
 * loopback: the one place that says how the tests start each provider's model. Each model's client is
 * set to make one attempt per exchange, as the starter's defaults do in an application.
 */
public final class SpringAiStarters {

    private SpringAiStarters() {
    }

    /**
     * OpenAI's chat model against a provider speaking OpenAI's wire format.
     *
     * @param root the provider's root, such as {@code http://127.0.0.1:8080}; the model calls
     *     {@code root + "/v1"}
     * @return the runner
     */
    public static ApplicationContextRunner openAi(String root) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class,
                    ToolCallingAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.openai.base-url=" + root + "/v1", "spring.ai.openai.api-key=test",
                    "spring.ai.openai.chat.max-retries=0");
    }

    /**
     * OpenAI's embedding model against a provider speaking OpenAI's wire format.
     *
     * @param root the provider's root, such as {@code http://127.0.0.1:8080}; the model calls
     *     {@code root + "/v1"}
     * @return the runner
     */
    public static ApplicationContextRunner openAiEmbedding(String root) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OpenAiEmbeddingAutoConfiguration.class,
                    SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.openai.base-url=" + root + "/v1", "spring.ai.openai.api-key=test",
                    "spring.ai.openai.embedding.max-retries=0");
    }

    /**
     * Anthropic's chat model against a provider speaking Anthropic's wire format.
     *
     * @param root the provider's root, which the model calls
     * @return the runner
     */
    public static ApplicationContextRunner anthropic(String root) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AnthropicChatAutoConfiguration.class,
                    ToolCallingAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.anthropic.base-url=" + root, "spring.ai.anthropic.api-key=test",
                    "spring.ai.anthropic.max-retries=0");
    }

    /**
     * Google GenAI's chat model on the Gemini API against a provider speaking Gemini's wire format. The SDK
     * takes its base URL from a default that it keeps in a static field: each context sets it as it starts.
     *
     * @param root the provider's root, which the model calls
     * @return the runner
     */
    public static ApplicationContextRunner googleGenAi(String root) {
        return new ApplicationContextRunner()
            .withInitializer((context) -> Client.setDefaultBaseUrls(Optional.of(root), Optional.empty()))
            .withConfiguration(AutoConfigurations.of(GoogleGenAiChatAutoConfiguration.class,
                    ToolCallingAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.google.genai.api-key=test", "spring.ai.model.chat=google-genai",
                    "spring.ai.google.genai.chat.options.model=" + GoogleWire.MODEL);
    }

    /**
     * Ollama's chat and embedding models against a provider speaking Ollama's wire format, with Spring
     * AI's shared retries (which the chat model's rebuild turns to one attempt for it alone).
     *
     * @param root the provider's root, which both models call
     * @return the runner
     */
    public static ApplicationContextRunner ollama(String root) {
        return ollama(root, ReactorClientHttpRequestFactory::new);
    }

    /**
     * Returns a runner of Spring AI's Ollama models, as {@link #ollama(String)}, whose client sends
     * through the transport given.
     *
     * @param root the provider's root, which both models call
     * @param transport makes the transport of the models' {@code RestClient}
     * @return the runner
     */
    public static ApplicationContextRunner ollama(String root, Supplier<ClientHttpRequestFactory> transport) {
        return new ApplicationContextRunner()
            .withBean(RestClient.Builder.class, () -> RestClient.builder().requestFactory(transport.get()))
            .withConfiguration(AutoConfigurations.of(OllamaApiAutoConfiguration.class, OllamaChatAutoConfiguration.class,
                    OllamaEmbeddingAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                    org.springframework.ai.retry.autoconfigure.SpringAiRetryAutoConfiguration.class,
                    SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.ollama.base-url=" + root, "spring.ai.ollama.chat.model=" + OllamaWire.MODEL,
                    "spring.ai.ollama.embedding.model=" + OllamaWire.MODEL);
    }
}
