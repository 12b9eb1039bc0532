package dev.inference.retry.springai;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition by polling it, with a deadline: how tests wait for another thread. */
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
}
