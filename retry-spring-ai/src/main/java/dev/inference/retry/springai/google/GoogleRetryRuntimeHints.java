package dev.inference.retry.springai.google;

import dev.inference.retry.springai.internal.GoogleInternals;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild Google GenAI chat models on retried clients: the private fields
 * the rebuild reads ({@link GoogleInternals#MEMBERS}).
 */
final class GoogleRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        GoogleInternals.MEMBERS.forEach((member) -> member.registerHint(hints));
    }
}
