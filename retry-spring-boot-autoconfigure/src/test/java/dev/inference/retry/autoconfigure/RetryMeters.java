package dev.inference.retry.autoconfigure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Collection;

/**
 * Reads the starter's meters from a registry, for the tests of the listener and of its
 * auto-configuration, by the types SPEC §5 gives them, as an application's own tests would: a
 * meter of another type is not found.
 */
final class RetryMeters {

    private RetryMeters() {
    }

    /** Returns the count of the {@code inference.retry.attempts} counter with these tags; fails if there is none. */
    static double attempts(MeterRegistry registry, String client, String operation, String outcome, String error) {
        return registry.get(MeterRetryListener.ATTEMPTS)
            .tags("client", client, "operation", operation, "outcome", outcome, "error", error)
            .counter()
            .count();
    }

    /** Returns the sum of all {@code inference.retry.attempts} counters; fails if there is none. */
    static double allAttempts(MeterRegistry registry) {
        return count(registry.get(MeterRetryListener.ATTEMPTS).counters());
    }

    /** Returns the sum of the counts of these counters. */
    static double count(Collection<Counter> counters) {
        return counters.stream().mapToDouble(Counter::count).sum();
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
