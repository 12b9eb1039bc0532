package dev.inference.retry.autoconfigure.refresh;

import dev.inference.retry.autoconfigure.RefreshOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The counter {@code inference.retry.refresh}, tagged {@code result} {@code applied} or
 * {@code rejected}, both registered at 0 so that a dashboard finds them before the first refresh.
 */
final class RefreshMeters {

    /** The counter's name. */
    static final String NAME = "inference.retry.refresh";

    private final Counter applied;

    private final Counter rejected;

    RefreshMeters(MeterRegistry registry) {
        this.applied = counter(registry, "applied");
        this.rejected = counter(registry, "rejected");
    }

    private static Counter counter(MeterRegistry registry, String result) {
        return Counter.builder(NAME)
            .description("Refreshes of the inference.retry configuration, applied or rejected whole")
            .tag("result", result)
            .register(registry);
    }

    void count(RefreshOutcome outcome) {
        (outcome.applied() ? this.applied : this.rejected).increment();
    }
}
