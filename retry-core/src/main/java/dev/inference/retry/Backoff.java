package dev.inference.retry;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The backoff schedule of a {@link Policy}: pure functions of the policy, the attempt that failed,
 * the jitter and the provider's {@code Retry-After}.
 *
 * <p>The <em>slot</em> after failed attempt {@code n} is {@code stableDelay} while
 * {@code n <= stableRetries}, then {@code stableDelay × 2^(n − stableRetries)} (so the first
 * exponential slot is twice {@code stableDelay}), capped at {@code maxDelay}. The <em>delay</em> is
 * the slot times a jitter factor in {@code [0.9, 1.1)}, replaced by the provider's
 * {@code Retry-After} (itself capped at {@link #RETRY_AFTER_CAP}) when that is longer. No input
 * makes either function overflow.
 */
public final class Backoff {

    /**
     * The longest provider {@code Retry-After} that is honoured: five minutes. A provider asking
     * for more is most likely misconfigured or asking to be left alone, which a bounded retry loop
     * cannot serve anyway; the call waits this long at most.
     */
    public static final Duration RETRY_AFTER_CAP = Duration.ofMinutes(5);

    /** The smallest jitter factor, inclusive. */
    public static final double MIN_JITTER = 0.9;

    /** The largest jitter factor, exclusive. */
    public static final double MAX_JITTER = 1.1;

    /** Seconds beyond which a duration in nanoseconds no longer fits in a {@code long}. */
    private static final long MAX_NANOS_SECONDS = Long.MAX_VALUE / 1_000_000_000L;

    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private Backoff() {
    }

    /**
     * Returns the slot, the delay before jitter, after a failed attempt.
     *
     * @param policy the policy
     * @param failedAttempt the 1-based number of the attempt that just failed
     * @return the slot, between {@code stableDelay} and {@code maxDelay}
     * @throws NullPointerException if {@code policy} is {@code null}
     * @throws IllegalArgumentException if {@code failedAttempt} is less than 1
     */
    public static Duration slot(Policy policy, int failedAttempt) {
        Objects.requireNonNull(policy, "policy must not be null");
        if (failedAttempt < 1) {
            throw new IllegalArgumentException("failedAttempt must be at least 1, was " + failedAttempt);
        }
        Duration stable = policy.stableDelay();
        if (failedAttempt <= policy.stableRetries()) {
            return stable;
        }
        int exponent = failedAttempt - policy.stableRetries();
        Duration max = policy.maxDelay();
        // 2^127 ns exceeds the longest Duration, and stableDelay is at least 1 ns: capped for sure.
        if (exponent >= 127) {
            return max;
        }
        if (exponent < Long.SIZE - 1 && max.getSeconds() < MAX_NANOS_SECONDS) {
            long stableNanos = stable.toNanos();
            // stable * 2^e > max exactly when stable > floor(max / 2^e): compare before shifting.
            return (stableNanos > (max.toNanos() >> exponent)) ? max : Duration.ofNanos(stableNanos << exponent);
        }
        // Delays beyond 292 years, or an exponent past 62: count nanoseconds without bounds.
        BigInteger slot = nanos(stable).shiftLeft(exponent);
        return (slot.compareTo(nanos(max)) >= 0) ? max
                : Duration.ofSeconds(slot.divide(NANOS_PER_SECOND).longValueExact(),
                        slot.remainder(NANOS_PER_SECOND).longValue());
    }

    private static BigInteger nanos(Duration duration) {
        return BigInteger.valueOf(duration.getSeconds()).multiply(NANOS_PER_SECOND).add(BigInteger.valueOf(duration.getNano()));
    }

    /**
     * Returns the delay to wait after a failed attempt: the slot times the jitter, or the
     * provider's {@code Retry-After} (capped at {@link #RETRY_AFTER_CAP}) when that is longer.
     *
     * @param policy the policy
     * @param failedAttempt the 1-based number of the attempt that just failed
     * @param jitter the jitter factor, in {@code [0.9, 1.1)}
     * @param retryAfter the provider's requested delay, or {@code null}; zero and negative values
     *     are ignored
     * @return the delay, never negative
     * @throws NullPointerException if {@code policy} is {@code null}
     * @throws IllegalArgumentException if {@code failedAttempt} is less than 1 or {@code jitter} is
     *     outside {@code [0.9, 1.1)} (including NaN)
     */
    public static Duration delay(Policy policy, int failedAttempt, double jitter, @Nullable Duration retryAfter) {
        if (!(jitter >= MIN_JITTER && jitter < MAX_JITTER)) {
            throw new IllegalArgumentException("jitter must be in [0.9, 1.1), was " + jitter);
        }
        Duration delay = scale(slot(policy, failedAttempt), jitter);
        if (retryAfter != null && !retryAfter.isNegative() && !retryAfter.isZero()) {
            Duration requested = (retryAfter.compareTo(RETRY_AFTER_CAP) > 0) ? RETRY_AFTER_CAP : retryAfter;
            if (requested.compareTo(delay) > 0) {
                return requested;
            }
        }
        return delay;
    }

    /**
     * Multiplies a duration by a factor near 1, saturating instead of overflowing: a Java
     * double-to-long conversion clamps to {@code Long.MAX_VALUE}.
     */
    private static Duration scale(Duration duration, double factor) {
        if (duration.getSeconds() < MAX_NANOS_SECONDS) {
            return Duration.ofNanos((long) (duration.toNanos() * factor));
        }
        return Duration.ofSeconds((long) (duration.getSeconds() * factor));
    }
}
