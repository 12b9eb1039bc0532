package dev.inference.retry.autoconfigure;

/**
 * Something that counts by one: what a listener increments, whether it is a registry's own
 * {@code Counter} or a {@link PerThreadCounter} read by a {@code FunctionCounter}. A hot call site
 * meets only one implementation per application, so it stays monomorphic.
 */
@FunctionalInterface
interface Tally {

    /** Counts one more; thread-safe. */
    void increment();
}
