package dev.inference.retry.reactor;

import java.util.random.RandomGenerator;

/**
 * A generator whose {@code nextDouble()} always returns the same value, for exact jitter.
 */
final class FixedRandom implements RandomGenerator {

    private final double unit;

    private FixedRandom(double unit) {
        this.unit = unit;
    }

    /** Returns a generator giving the jitter factor 1 exactly ({@code 0.9 + 0.2 × 0.5}). */
    static FixedRandom noJitter() {
        return new FixedRandom(0.5);
    }

    static FixedRandom always(double unit) {
        return new FixedRandom(unit);
    }

    @Override
    public double nextDouble() {
        return this.unit;
    }

    @Override
    public long nextLong() {
        throw new UnsupportedOperationException("Only nextDouble() is scripted");
    }
}
