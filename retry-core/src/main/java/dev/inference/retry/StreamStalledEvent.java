package dev.inference.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * A stream that a retrier watched stayed silent past its {@code stream-idle-timeout} once established,
 * and was ended with a {@link dev.inference.failure.StreamStalledException}. Told to
 * {@link RetryListener#streamStalled} once per stalled stream; a stall is never retried, so no
 * {@link AttemptEvent} follows it.
 *
 * @param client the retrier's name, such as the bean name
 * @param idleTimeout the idle timeout the stream ran past, positive
 */
public record StreamStalledEvent(String client, Duration idleTimeout) {

    /**
     * Checks the components.
     *
     * @param client the retrier's name, such as the bean name
     * @param idleTimeout the idle timeout the stream ran past, positive
     * @throws NullPointerException if a component is {@code null}
     * @throws IllegalArgumentException if {@code idleTimeout} is not positive
     */
    public StreamStalledEvent {
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(idleTimeout, "idleTimeout must not be null");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
        }
    }
}
