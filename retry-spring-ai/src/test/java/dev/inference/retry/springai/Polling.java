package dev.inference.retry.springai;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition by polling it, with a deadline: how tests wait for another thread, or watch that
 * something does not happen for a while.
 */
final class Polling {

    private Polling() {
    }

    /** Returns once the condition holds; fails the test when it does not within ten seconds. */
    static void awaitTrue(BooleanSupplier condition) {
        awaitTrue(condition, Duration.ofSeconds(10));
    }

    /** Returns once the condition holds; fails the test when it does not within the timeout. */
    static void awaitTrue(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within " + timeout);
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }

    /** Returns once the condition has held for the whole period; fails the test the first time it does not. */
    static void assertHolds(BooleanSupplier condition, Duration period) {
        long end = System.nanoTime() + period.toNanos();
        do {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("Condition stopped holding before " + period + " had passed");
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        while (System.nanoTime() < end);
    }
}
