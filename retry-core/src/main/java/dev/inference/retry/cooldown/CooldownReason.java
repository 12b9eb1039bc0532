package dev.inference.retry.cooldown;

/**
 * Why a provider account was cooled down, as a {@link CooldownStore} keeps it and a
 * {@link CooldownSetEvent} reports it.
 */
public enum CooldownReason {

    /** A failed attempt's response asked for a wait with {@code Retry-After} (or {@code retry-after-ms}). */
    RETRY_AFTER,

    /**
     * A response, successful or not, said with its rate-limit headers that no requests or no tokens
     * remain before a reset (see {@link dev.inference.retry.Retrier#rateLimited}).
     */
    RATE_LIMIT
}
