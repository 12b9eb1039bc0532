package dev.inference.retry.time;

import dev.inference.client.CallContext;
import java.time.Duration;

/** The sleeper that really waits, through {@link CallContext#await(Duration)}. */
final class SystemSleeper implements Sleeper {

    static final SystemSleeper INSTANCE = new SystemSleeper();

    private SystemSleeper() {
    }

    @Override
    public void sleep(Duration delay, CallContext context) throws InterruptedException {
        context.await(delay);
    }

    @Override
    public String toString() {
        return "Sleeper.system()";
    }
}
