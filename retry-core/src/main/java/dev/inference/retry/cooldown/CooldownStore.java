package dev.inference.retry.cooldown;

import java.time.Duration;
import java.util.Optional;

/**
 * Where the cool-downs that providers ask for are kept, so that every caller of a provider account
 * hears a {@code Retry-After} that one of them received.
 *
 * <p>A key names a provider account; clients with the same key share its cool-down. When an attempt
 * fails retryably with a positive {@code Retry-After}, the client {@linkplain #coolDown cools} its key
 * for that long (capped at {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP}); before every attempt,
 * the first included, it waits out the {@linkplain #remaining remaining} cool-down of its key.
 *
 * <p>Implementations must be thread-safe. {@link #remaining} is called before every attempt, so it
 * must answer from memory, never over a network; a store shared between processes keeps a local
 * copy current by other means. Cool-downs are durations, not instants, so that stores shared between
 * hosts are immune to the differences between their clocks.
 *
 * <p>A store may keep why each cool-down was set ({@link CooldownReason}), for diagnostics: a store
 * that does implements {@link #coolDown(String, Duration, CooldownReason)} and {@link #reason}; by
 * default a store keeps no reason.
 */
public interface CooldownStore {

    /**
     * Returns how long the cool-down in force for a key still lasts.
     *
     * @param key the provider account
     * @return the time left, or {@link Duration#ZERO} when no cool-down is in force; never negative
     */
    Duration remaining(String key);

    /**
     * Cools a key down for a duration from now, unless a cool-down already in force ends later: a
     * later cool-down never shortens an earlier one.
     *
     * @param key the provider account
     * @param duration how long, positive and at most
     *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP}
     */
    void coolDown(String key, Duration duration);

    /**
     * Cools a key down for a reason, as {@link #coolDown(String, Duration)} does; the reason is kept
     * with the cool-down that ends last. By default the reason is dropped.
     *
     * @param key the provider account
     * @param duration how long, positive and at most
     *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP}
     * @param reason why the key is cooled down
     */
    default void coolDown(String key, Duration duration, CooldownReason reason) {
        coolDown(key, duration);
    }

    /**
     * Returns why the cool-down in force for a key was set, for diagnostics.
     *
     * @param key the provider account
     * @return the reason of the cool-down that ends last, or empty when none is in force or the store
     *     keeps no reasons (as by default)
     */
    default Optional<CooldownReason> reason(String key) {
        return Optional.empty();
    }
}
