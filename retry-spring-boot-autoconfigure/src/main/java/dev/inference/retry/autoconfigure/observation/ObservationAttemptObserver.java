package dev.inference.retry.autoconfigure.observation;

import dev.inference.retry.AttemptObserver;
import dev.inference.retry.Operation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes each attempt of a retried call as a Micrometer {@link Observation} named
 * {@value DefaultRetryAttemptObservationConvention#NAME}: started right before the attempt is made,
 * stopped once the call has decided what follows it. With Micrometer Tracing, that is one span per
 * attempt under the caller's span.
 *
 * <p>A scheduled wait is recorded on the failed attempt's observation before it stops: as the
 * {@code retry.delay} key and as an {@link Observation.Event} named {@value #RETRY_SCHEDULED} whose
 * contextual name gives the exact delay. The wait itself is not an observation: a span with no work
 * in it would only stretch the trace. An observation is started and stopped on the thread that drives
 * the call; no scope is opened, so the observer is as safe for non-blocking callers as for blocking
 * ones.
 */
public final class ObservationAttemptObserver implements AttemptObserver {

    /** The name of the event that records a scheduled retry on the failed attempt's observation. */
    public static final String RETRY_SCHEDULED = "inference.retry.scheduled";

    private static final RetryAttemptObservationConvention DEFAULT_CONVENTION =
            new DefaultRetryAttemptObservationConvention();

    private final ObservationRegistry registry;

    private final @Nullable RetryAttemptObservationConvention convention;

    /**
     * Creates the observer.
     *
     * @param registry where the observations are made
     * @param convention the convention that replaces the default one, or {@code null} for the default
     */
    public ObservationAttemptObserver(ObservationRegistry registry, @Nullable RetryAttemptObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
        this.convention = convention;
    }

    @Override
    public ObservedAttempt attemptStarted(String client, Operation operation, int attempt) {
        RetryAttemptContext context = new RetryAttemptContext(client, operation, attempt);
        Observation observation = Observation
            .createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
            .start();
        return (outcome, retryDelay) -> {
            context.ended(outcome, retryDelay);
            if (outcome.failure() != null) {
                observation.error(outcome.failure());
            }
            if (retryDelay != null) {
                observation.event(Observation.Event.of(RETRY_SCHEDULED, "retry in " + retryDelay));
            }
            observation.stop();
        };
    }

    @Override
    public String toString() {
        return "ObservationAttemptObserver[" + this.registry + "]";
    }
}
