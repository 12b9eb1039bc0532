package dev.inference.retry;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What happened in one attempt of a call, as reported to a {@link RetryListener}.
 *
 * @param client the name of the retrying client
 * @param operation the kind of call
 * @param attempt the 1-based number of the attempt
 * @param failure the typed failure of the attempt (the cause of a
 *     {@link dev.inference.client.HalfOpenStreamException}, never the wrapper), or {@code null} when
 *     it succeeded
 * @param retryable whether the failure is transient (see {@link Classification}); {@code false} on
 *     success
 */
public record AttemptEvent(String client, Operation operation, int attempt, @Nullable Throwable failure,
        boolean retryable) {

    /**
     * Validates the event.
     *
     * @param client the name of the retrying client
     * @param operation the kind of call
     * @param attempt the 1-based number of the attempt
     * @param failure the typed failure of the attempt, or {@code null} when it succeeded
     * @param retryable whether the failure is transient; {@code false} on success
     * @throws NullPointerException if {@code client} or {@code operation} is {@code null}
     * @throws IllegalArgumentException if {@code attempt} is less than 1
     */
    public AttemptEvent {
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(operation, "operation must not be null");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
        }
    }

    /**
     * Tells whether the attempt succeeded.
     *
     * @return {@code true} when there is no failure
     */
    public boolean succeeded() {
        return this.failure == null;
    }
}
