package dev.inference.retry.cooldown.redis;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition that another thread or process brings about, with a deadline. */
final class Poll {

    private static final long FINE_PERIOD = Duration.ofMillis(100).toNanos();

    private static final long COARSE_PERIOD = Duration.ofMillis(10).toNanos();

    private Poll() {
    }

    /**
     * Polls, finely for the first 100 ms so that short latencies can be measured (every 50 µs, timer
     * slack permitting) and every 10 ms after that, and returns how long the condition took.
     */
    static Duration until(String condition, Duration deadline, BooleanSupplier check) {
        long start = System.nanoTime();
        while (!check.getAsBoolean()) {
            if (System.nanoTime() - start > deadline.toNanos()) {
                throw new AssertionError("Not " + condition + " within " + deadline);
            }
            boolean early = System.nanoTime() - start < FINE_PERIOD;
            LockSupport.parkNanos(early ? 50_000 : COARSE_PERIOD);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * Checks a condition every 10 ms for a whole period, such as an outage of a given length, and
     * fails as soon as it does not hold.
     */
    static void throughout(String condition, Duration period, BooleanSupplier check) {
        long start = System.nanoTime();
        do {
            if (!check.getAsBoolean()) {
                throw new AssertionError("Not " + condition + " after "
                        + Duration.ofNanos(System.nanoTime() - start) + " of " + period);
            }
            LockSupport.parkNanos(COARSE_PERIOD);
        }
        while (System.nanoTime() - start < period.toNanos());
    }
}
