package dev.inference.retry.autoconfigure.observation;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Operation;
import io.micrometer.observation.Observation;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one attempt of a retried call knows: the client, the operation and the
 * attempt's number from the start; the attempt's outcome and the backoff before the next attempt,
 * if any, once the call has decided what follows.
 */
public class RetryAttemptContext extends Observation.Context {

    private final String client;

    private final Operation operation;

    private final int attempt;

    private @Nullable AttemptEvent outcome;

    private @Nullable Duration retryDelay;

    /**
     * Creates the context of an attempt about to be made.
     *
     * @param client the name of the retrying client, such as its bean name
     * @param operation the kind of call
     * @param attempt the 1-based number of the attempt
     */
    public RetryAttemptContext(String client, Operation operation, int attempt) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        this.operation = Objects.requireNonNull(operation, "operation must not be null");
        this.attempt = attempt;
    }

    /**
     * Returns the name of the retrying client.
     *
     * @return the client's name
     */
    public String getClient() {
        return this.client;
    }

    /**
     * Returns the kind of call.
     *
     * @return the operation
     */
    public Operation getOperation() {
        return this.operation;
    }

    /**
     * Returns the number of the attempt.
     *
     * @return the 1-based attempt number
     */
    public int getAttempt() {
        return this.attempt;
    }

    /**
     * Returns the attempt's outcome, once known.
     *
     * @return the attempt as the listeners heard of it, or empty while it is in flight
     */
    public Optional<AttemptEvent> getOutcome() {
        return Optional.ofNullable(this.outcome);
    }

    /**
     * Returns the backoff before the next attempt, when the call retries.
     *
     * @return the exact delay, or empty when the call ended with this attempt or it is in flight
     */
    public Optional<Duration> getRetryDelay() {
        return Optional.ofNullable(this.retryDelay);
    }

    void ended(AttemptEvent outcome, @Nullable Duration retryDelay) {
        this.outcome = outcome;
        this.retryDelay = retryDelay;
    }
}
