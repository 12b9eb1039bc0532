package dev.inference.retry.autoconfigure;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Timer;
import java.util.Collection;
import java.util.stream.StreamSupport;

/**
 * Reads the starter's meters from a registry, for the tests of the listener and of its
 * auto-configuration. The attempt counters are read as any counting meter: a {@code FunctionCounter}
 * in most registries, a {@code Counter} in a composite one.
 */
final class RetryMeters {

    private RetryMeters() {
    }

    /** Returns the count of {@code inference.retry.attempts} with these tags; fails if it is not registered. */
    static double attempts(MeterRegistry registry, String client, String operation, String outcome, String error) {
        return count(registry.get(MeterRetryListener.ATTEMPTS)
            .tags("client", client, "operation", operation, "outcome", outcome, "error", error)
            .meter());
    }

    /** Returns the count of all {@code inference.retry.attempts} meters; fails if there is none. */
    static double allAttempts(MeterRegistry registry) {
        return count(registry.get(MeterRetryListener.ATTEMPTS).meters());
    }

    /** Returns the sum of the counts of these meters. */
    static double count(Collection<Meter> meters) {
        return meters.stream().mapToDouble(RetryMeters::count).sum();
    }

    /** Returns the count of a counting meter, whatever its class. */
    static double count(Meter meter) {
        return StreamSupport.stream(meter.measure().spliterator(), false)
            .filter((measurement) -> measurement.getStatistic() == Statistic.COUNT)
            .mapToDouble((measurement) -> measurement.getValue())
            .sum();
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
