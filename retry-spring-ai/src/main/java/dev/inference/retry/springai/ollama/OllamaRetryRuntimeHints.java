package dev.inference.retry.springai.ollama;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild Ollama chat models on retried clients: the private fields
 * {@link OllamaChatModelRebuild} reads.
 */
final class OllamaRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        OllamaChatModelRebuild.FIELDS.forEach((field) -> field.registerHint(hints));
    }
}
