package dev.inference.retry.autoconfigure.refresh;

import dev.inference.retry.autoconfigure.MeterRetryListener;
import dev.inference.retry.autoconfigure.RefreshOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The counter {@code inference.retry.refresh}, tagged {@code result} {@code applied} or
 * {@code rejected}, both registered at 0 so that a dashboard finds them before the first refresh.
 */
final class RefreshMeters {

    private final Counter applied;

    private final Counter rejected;

    RefreshMeters(MeterRegistry registry) {
        this.applied = counter(registry, "applied");
        this.rejected = counter(registry, "rejected");
    }

    private static Counter counter(MeterRegistry registry, String result) {
        return Counter.builder(MeterRetryListener.REFRESHES)
            .description("Refreshes of the inference.retry configuration, applied or rejected whole")
            .tag("result", result)
            .register(registry);
    }

    void count(RefreshOutcome outcome) {
        (outcome.applied() ? this.applied : this.rejected).increment();
    }
}
