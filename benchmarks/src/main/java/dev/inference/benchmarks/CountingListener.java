package dev.inference.benchmarks;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Micrometer-backed {@link RetryListener} that counts every attempt in
 * {@code inference.retry.attempts}, tagged as the starter's metrics are ({@code client},
 * {@code operation}, {@code outcome}, {@code error}), so the benchmarks can price metrics on the hot
 * path.
 *
 * <p>A success increments a counter looked up once at construction; a failure looks its counter up in
 * a map, registering it on first use. Thread-safe.
 */
final class CountingListener implements RetryListener {

    private static final String ATTEMPTS = "inference.retry.attempts";

    private final MeterRegistry registry;

    private final String client;

    private final Counter[] successes;

    private final Map<String, Counter> failures = new ConcurrentHashMap<>();

    /**
     * Creates a listener that registers its counters in {@code registry}.
     *
     * @param registry where the counters live
     * @param client the {@code client} tag of every counter
     */
    CountingListener(MeterRegistry registry, String client) {
        this.registry = registry;
        this.client = client;
        this.successes = new Counter[Operation.values().length];
        for (Operation operation : Operation.values()) {
            this.successes[operation.ordinal()] = counter(operation, "success", "none");
        }
    }

    /**
     * Increments the counter of the attempt's operation, outcome and error.
     *
     * @param event the attempt
     */
    @Override
    public void attemptFinished(AttemptEvent event) {
        Throwable failure = event.failure();
        if (failure == null) {
            this.successes[event.operation().ordinal()].increment();
            return;
        }
        String outcome = event.retryable() ? "retryable_failure" : "failure";
        String error = errorTag(failure);
        this.failures.computeIfAbsent(event.operation() + "/" + outcome + "/" + error,
                key -> counter(event.operation(), outcome, error)).increment();
    }

    private Counter counter(Operation operation, String outcome, String error) {
        return Counter.builder(ATTEMPTS)
                .tag("client", this.client)
                .tag("operation", operation.name().toLowerCase(Locale.ROOT))
                .tag("outcome", outcome)
                .tag("error", error)
                .register(this.registry);
    }

    private static String errorTag(Throwable failure) {
        if (failure instanceof NetworkException) {
            return "network";
        }
        if (failure instanceof HttpStatusException status) {
            return "http_" + status.status();
        }
        return failure.getClass().getSimpleName();
    }
}
