package dev.inference.retry.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Reads the starter's meters from a registry, for the tests of the listener and of its
 * auto-configuration.
 */
final class RetryMeters {

    private RetryMeters() {
    }

    /** Returns the count of {@code inference.retry.attempts} with these tags; fails if it is not registered. */
    static double attempts(MeterRegistry registry, String client, String operation, String outcome, String error) {
        return registry.get(MeterRetryListener.ATTEMPTS)
            .tags("client", client, "operation", operation, "outcome", outcome, "error", error)
            .counter()
            .count();
    }

    /** Returns the count of {@code inference.retry.exhausted} with these tags; fails if it is not registered. */
    static double exhausted(MeterRegistry registry, String client, String operation) {
        return registry.get(MeterRetryListener.EXHAUSTED).tags("client", client, "operation", operation).counter().count();
    }

    /** Returns the {@code inference.retry.backoff} timer with these tags; fails if it is not registered. */
    static Timer backoff(MeterRegistry registry, String client, String operation) {
        return registry.get(MeterRetryListener.BACKOFF).tags("client", client, "operation", operation).timer();
    }
}
