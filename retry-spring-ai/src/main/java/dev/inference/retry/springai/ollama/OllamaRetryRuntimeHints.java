package dev.inference.retry.springai.ollama;

import dev.inference.retry.springai.internal.OllamaInternals;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild Ollama's models on retried clients: the private fields the
 * rebuilds read ({@link OllamaInternals#MEMBERS}).
 */
final class OllamaRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        OllamaInternals.MEMBERS.forEach((member) -> member.registerHint(hints));
    }
}
