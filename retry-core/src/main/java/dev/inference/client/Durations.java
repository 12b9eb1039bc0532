package dev.inference.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Overflow-safe arithmetic on {@link Duration}s, for waits counted in nanoseconds, and the one park
 * loop that the library's cancellable waits share.
 *
 * <p>A {@code long} holds about 292 years of nanoseconds; {@link Duration} holds far more. Every wait
 * in this library is counted in nanoseconds, so every conversion saturates at
 * {@link #LONGEST_WAIT} instead of throwing {@link ArithmeticException} or wrapping around. One
 * helper, so that the core and the Spring layer agree on the bound.
 */
public final class Durations {

    /** The longest wait that can be counted in nanoseconds: {@code Long.MAX_VALUE} ns, some 292 years. */
    public static final Duration LONGEST_WAIT = Duration.ofNanos(Long.MAX_VALUE);

    /** Seconds from which a duration in nanoseconds no longer fits in a {@code long}. */
    private static final long MAX_NANOS_SECONDS = Long.MAX_VALUE / 1_000_000_000L;

    private Durations() {
    }

    /**
     * Returns a duration in nanoseconds as a wait: zero for a negative duration, and
     * {@code Long.MAX_VALUE} (a wait forever, in practice) for one too long for a {@code long}.
     *
     * @param duration the duration
     * @return the nanoseconds, between 0 and {@code Long.MAX_VALUE}
     * @throws NullPointerException if {@code duration} is {@code null}
     */
    public static long toWaitNanos(Duration duration) {
        Objects.requireNonNull(duration, "duration must not be null");
        if (duration.isNegative()) {
            return 0;
        }
        return fitsInNanos(duration) ? duration.toNanos() : Long.MAX_VALUE;
    }

    /**
     * Multiplies a non-negative duration by a non-negative factor, rounding towards zero and
     * saturating at the longest {@link Duration} instead of overflowing.
     *
     * @param duration the duration, not negative
     * @param factor the factor, finite and not negative
     * @return the scaled duration
     * @throws NullPointerException if {@code duration} is {@code null}
     * @throws IllegalArgumentException if {@code duration} is negative or {@code factor} is negative,
     *     infinite or NaN
     */
    public static Duration scale(Duration duration, double factor) {
        Objects.requireNonNull(duration, "duration must not be null");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative, was " + duration);
        }
        if (!(factor >= 0 && factor < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("factor must be finite and not negative, was " + factor);
        }
        // A double-to-long conversion clamps to Long.MAX_VALUE: saturation comes for free.
        if (fitsInNanos(duration)) {
            return Duration.ofNanos((long) (duration.toNanos() * factor));
        }
        return Duration.ofSeconds((long) (duration.toSeconds() * factor));
    }

    /**
     * Parks the calling thread until {@code done} says so, {@code nanos} have elapsed, or the thread is
     * interrupted; holds no lock, so a virtual thread is never pinned. Whoever makes {@code done} true
     * must then unpark the thread, and must be registered to do so before this is called, so that a
     * change racing with the call is either seen here or wakes the thread.
     *
     * @param nanos the longest wait in nanoseconds; zero or negative does not park
     * @param done tells whether the wait is over for another reason than time
     * @param blocker the object the thread parks on, as shown by thread dumps
     * @throws InterruptedException if the thread is interrupted (its interrupt status is then cleared)
     */
    public static void park(long nanos, BooleanSupplier done, Object blocker) throws InterruptedException {
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = nanos - (System.nanoTime() - start);
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(blocker, left);
        }
    }

    /**
     * Tells whether a non-negative duration's nanoseconds fit in a {@code long}.
     *
     * @param duration the duration, not negative
     * @return {@code true} when {@link Duration#toNanos()} cannot overflow
     */
    static boolean fitsInNanos(Duration duration) {
        return duration.toSeconds() < MAX_NANOS_SECONDS;
    }
}
