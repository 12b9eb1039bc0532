package dev.inference.retry.springai.ollama;

import dev.inference.retry.springai.support.SpringAiProvider;
import java.util.List;
import java.util.Set;

/**
 * Ollama, as the starter retries it: {@code OllamaChatModel} and {@code OllamaEmbeddingModel} rebuilt on
 * a {@code RestClient} (and, for the chat model's streams, a {@code WebClient}) whose HTTP exchanges are
 * retried (see {@link OllamaChatModelRebuild} and {@link OllamaEmbeddingModelRebuild}). The chat model's
 * own retries come from spring-ai-retry's shared {@code RetryTemplate}, which the rebuilt model does not
 * use, and the embedding model has none, so there is no property to set; the failures are Spring's HTTP
 * clients', which the proxy knows.
 */
public final class OllamaProvider {

    /** The description, which loads none of Ollama's classes. */
    public static final SpringAiProvider DESCRIPTION = new SpringAiProvider("Ollama",
            "dev.inference.retry.springai.ollama.OllamaRetryConfiguration",
            Set.of("org.springframework.ai.ollama.OllamaChatModel",
                    "org.springframework.ai.ollama.OllamaEmbeddingModel"),
            List.of(), List.of());

    private OllamaProvider() {
    }
}
