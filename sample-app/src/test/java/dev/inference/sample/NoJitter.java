package dev.inference.sample;

import java.util.random.RandomGenerator;

/**
 * The jitter source that makes every delay exactly its slot: {@code 0.9 + 0.2 × 0.5 = 1}.
 * Thread-safe, having no state.
 */
public final class NoJitter implements RandomGenerator {

    /** The one instance. */
    public static final NoJitter INSTANCE = new NoJitter();

    private NoJitter() {
    }

    @Override
    public long nextLong() {
        throw new UnsupportedOperationException("Only nextDouble() is used for jitter");
    }

    @Override
    public double nextDouble() {
        return 0.5;
    }
}
