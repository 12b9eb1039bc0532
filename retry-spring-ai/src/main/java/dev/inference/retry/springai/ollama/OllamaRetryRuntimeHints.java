package dev.inference.retry.springai.ollama;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild Ollama's models on retried clients: the private fields
 * {@link OllamaChatModelRebuild}, {@link OllamaEmbeddingModelRebuild} and {@link RetriedOllamaApi} read.
 */
final class OllamaRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        OllamaChatModelRebuild.FIELDS.forEach((field) -> field.registerHint(hints));
        OllamaEmbeddingModelRebuild.FIELDS.forEach((field) -> field.registerHint(hints));
        RetriedOllamaApi.FIELDS.forEach((field) -> field.registerHint(hints));
    }
}
