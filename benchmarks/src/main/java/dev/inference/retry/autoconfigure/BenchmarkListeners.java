package dev.inference.retry.autoconfigure;

import dev.inference.retry.RetryListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * Hands the benchmarks the starter's own Micrometer listener, which is package-private: the
 * benchmarks price the metrics that an application really gets, not a stand-in.
 */
public final class BenchmarkListeners {

    private BenchmarkListeners() {
    }

    /**
     * Returns the listener the auto-configuration adds to every wrapped client when a
     * {@link MeterRegistry} exists, with the meters of {@code client} registered up front as at
     * startup.
     *
     * @param registry where the meters live
     * @param client the name of the client the listener will hear from
     * @return the starter's {@code MeterRetryListener}
     */
    public static RetryListener meters(MeterRegistry registry, String client) {
        return new MeterRetryListener(registry, List.of(client));
    }
}
