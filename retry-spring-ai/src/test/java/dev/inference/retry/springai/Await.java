package dev.inference.retry.springai;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits in tests for a condition that another thread makes true, by polling it with a deadline rather
 * than sleeping for a guessed time; or watches that a condition stays true for a while.
 */
public final class Await {

    private Await() {
    }

    /** Polls until the condition holds, for at most ten seconds. */
    public static void awaitTrue(BooleanSupplier condition) {
        awaitTrue(condition, Duration.ofSeconds(10));
    }

    /** Polls until the condition holds, failing the test once the timeout has passed without it. */
    public static void awaitTrue(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within " + timeout);
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }

    /** Polls the condition for the whole period, failing the test the first time it does not hold. */
    public static void assertHolds(BooleanSupplier condition, Duration period) {
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
