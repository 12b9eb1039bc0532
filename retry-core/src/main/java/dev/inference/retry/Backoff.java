package dev.inference.retry;

import dev.inference.client.Durations;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;
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
 *
 * <p>This class is the one place that knows the jitter rule: {@link #jitter(RandomGenerator)} draws a
 * factor, and {@link #shortestDelay} and {@link #delayBound} give the range it spreads a slot over.
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
        if (exponent < Long.SIZE - 1 && max.compareTo(Durations.LONGEST_WAIT) < 0) {
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
        Duration delay = Durations.scale(slot(policy, failedAttempt), jitter);
        if (retryAfter != null && !retryAfter.isNegative() && !retryAfter.isZero()) {
            Duration requested = (retryAfter.compareTo(RETRY_AFTER_CAP) > 0) ? RETRY_AFTER_CAP : retryAfter;
            if (requested.compareTo(delay) > 0) {
                return requested;
            }
        }
        return delay;
    }

    /**
     * Draws a jitter factor: {@code 0.9 + 0.2 × random.nextDouble()}, kept below 1.1.
     *
     * @param random the source of randomness
     * @return a factor in {@code [0.9, 1.1)}
     * @throws NullPointerException if {@code random} is {@code null}
     */
    public static double jitter(RandomGenerator random) {
        double unit = random.nextDouble();
        // 0.9 + 0.2 * u rounds up to 1.1 for the largest doubles below 1; the bound is exclusive.
        return Math.min(MIN_JITTER + 0.2 * unit, Math.nextDown(MAX_JITTER));
    }

    /**
     * Returns the shortest delay jitter can make of a slot, ignoring {@code Retry-After}:
     * {@code slot × 0.9}, computed as {@link #delay} computes it.
     *
     * @param policy the policy
     * @param failedAttempt the 1-based number of the attempt that just failed
     * @return the shortest delay, inclusive
     * @throws NullPointerException if {@code policy} is {@code null}
     * @throws IllegalArgumentException if {@code failedAttempt} is less than 1
     */
    public static Duration shortestDelay(Policy policy, int failedAttempt) {
        return Durations.scale(slot(policy, failedAttempt), MIN_JITTER);
    }

    /**
     * Returns the bound, never reached, of the delays jitter can make of a slot, ignoring
     * {@code Retry-After}: {@code slot × 1.1}, computed as {@link #delay} computes it.
     *
     * @param policy the policy
     * @param failedAttempt the 1-based number of the attempt that just failed
     * @return the exclusive upper bound of the delay
     * @throws NullPointerException if {@code policy} is {@code null}
     * @throws IllegalArgumentException if {@code failedAttempt} is less than 1
     */
    public static Duration delayBound(Policy policy, int failedAttempt) {
        return Durations.scale(slot(policy, failedAttempt), MAX_JITTER);
    }
}
