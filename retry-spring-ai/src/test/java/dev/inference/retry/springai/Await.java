package dev.inference.retry.springai;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits in tests for a condition that another thread makes true, by polling it with a deadline rather
 * than sleeping for a guessed time.
 */
final class Await {

    private Await() {
    }

    /** Polls until the condition holds, for at most ten seconds. */
    static void awaitTrue(BooleanSupplier condition) {
        awaitTrue(condition, Duration.ofSeconds(10));
    }

    /** Polls until the condition holds, failing the test once the timeout has passed without it. */
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
