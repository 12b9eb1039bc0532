package dev.inference.retry;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The immutable retry policy of a client: how many attempts a call may make and how long to wait
 * between them.
 *
 * <p>A call makes at most {@code maxAttempts} attempts, the first included. After each of the first
 * {@code stableRetries} failed attempts it waits {@code stableDelay}; after that the wait doubles,
 * starting from twice {@code stableDelay}, and never exceeds {@code maxDelay} (see
 * {@link Backoff}). Every field must be given: a policy is valid when
 * <ul>
 * <li>{@code maxAttempts >= 1};</li>
 * <li>{@code 0 <= stableRetries < maxAttempts};</li>
 * <li>{@code stableDelay} is positive;</li>
 * <li>{@code maxDelay >= stableDelay}.</li>
 * </ul>
 * An invalid policy cannot be constructed, so the all-zero policy does not exist and there are no
 * defaults.
 *
 * @param stableRetries how many retries wait {@code stableDelay} before the exponential leg starts
 * @param stableDelay the wait of the stable leg, and the base of the exponential one
 * @param maxAttempts the most attempts a call makes, the first included
 * @param maxDelay the cap on any scheduled wait before jitter
 */
public record Policy(int stableRetries, Duration stableDelay, int maxAttempts, Duration maxDelay) {

    /**
     * Validates the policy.
     *
     * @throws ConfigException naming the first field that breaks a rule, its value and the rule
     */
    public Policy(int stableRetries, @Nullable Duration stableDelay, int maxAttempts, @Nullable Duration maxDelay) {
        if (maxAttempts < 1) {
            throw new ConfigException("maxAttempts", maxAttempts, "must be at least 1");
        }
        if (stableRetries < 0) {
            throw new ConfigException("stableRetries", stableRetries, "must not be negative");
        }
        if (stableRetries >= maxAttempts) {
            throw new ConfigException("stableRetries", stableRetries,
                    "must be less than maxAttempts (" + maxAttempts + ")");
        }
        if (stableDelay == null) {
            throw new ConfigException("stableDelay", null, "must be a positive duration");
        }
        if (stableDelay.isNegative() || stableDelay.isZero()) {
            throw new ConfigException("stableDelay", stableDelay, "must be a positive duration");
        }
        if (maxDelay == null) {
            throw new ConfigException("maxDelay", null, "must be a duration of at least stableDelay (" + stableDelay + ")");
        }
        if (maxDelay.compareTo(stableDelay) < 0) {
            throw new ConfigException("maxDelay", maxDelay, "must be at least stableDelay (" + stableDelay + ")");
        }
        this.stableRetries = stableRetries;
        this.stableDelay = stableDelay;
        this.maxAttempts = maxAttempts;
        this.maxDelay = maxDelay;
    }
}
