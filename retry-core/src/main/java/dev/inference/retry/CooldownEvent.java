package dev.inference.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * An attempt that a cool-down delayed, as reported to a {@link RetryListener} before the wait.
 *
 * @param client the name of the retrying client
 * @param operation the kind of call
 * @param attempt the 1-based number of the attempt that waits
 * @param key the provider account whose cool-down is in force
 * @param delay how long the attempt waits for the cool-down, beyond any backoff; positive
 */
public record CooldownEvent(String client, Operation operation, int attempt, String key, Duration delay) {

    /**
     * Validates the event.
     *
     * @param client the name of the retrying client
     * @param operation the kind of call
     * @param attempt the 1-based number of the attempt that waits
     * @param key the provider account whose cool-down is in force
     * @param delay how long the attempt waits for the cool-down, beyond any backoff
     * @throws NullPointerException if a reference is {@code null}
     * @throws IllegalArgumentException if {@code attempt} is less than 1 or {@code delay} is not
     *     positive
     */
    public CooldownEvent {
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(operation, "operation must not be null");
        Objects.requireNonNull(key, "key must not be null");
        Objects.requireNonNull(delay, "delay must not be null");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
        }
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be positive, was " + delay);
        }
    }
}
