package dev.inference.retry.cooldown;

import java.time.Duration;
import java.util.Objects;

/**
 * A cool-down that a client set, as reported to a {@link dev.inference.retry.RetryListener} once its
 * store has it: the store keeps it unless a cool-down in force ends later.
 *
 * @param client the name of the client that set it
 * @param key the provider account it cools
 * @param duration how long from now, positive and at most
 *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP}
 * @param reason why
 */
public record CooldownSetEvent(String client, String key, Duration duration, CooldownReason reason) {

    /**
     * Validates the event.
     *
     * @param client the name of the client that set it
     * @param key the provider account it cools
     * @param duration how long from now, positive and at most
 *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP}
     * @param reason why
     * @throws NullPointerException if a component is {@code null}
     * @throws IllegalArgumentException if {@code duration} is not positive
     */
    public CooldownSetEvent {
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(key, "key must not be null");
        Objects.requireNonNull(duration, "duration must not be null");
        Objects.requireNonNull(reason, "reason must not be null");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
    }
}
