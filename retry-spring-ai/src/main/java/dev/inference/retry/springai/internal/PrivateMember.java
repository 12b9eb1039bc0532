package dev.inference.retry.springai.internal;

import org.springframework.aot.hint.RuntimeHints;

/**
 * A private member of Spring AI or of a provider SDK that this module reads or calls: a
 * {@link PrivateField} or a {@link PrivateConstructor}. Each provider's {@code *Internals} class lists its
 * members, so that the same list gives a native image its reflection hints.
 */
public sealed interface PrivateMember permits PrivateField, PrivateConstructor {

    /**
     * Registers the member for reflection in a native image, if its class declares it: a member of
     * another version is left out, and its read fails at startup, as on the JVM.
     *
     * @param hints the hints to add to
     */
    void registerHint(RuntimeHints hints);
}
