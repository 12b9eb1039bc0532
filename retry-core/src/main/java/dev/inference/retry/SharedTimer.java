package dev.inference.retry;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.retry.time.DeadlineTimer;
import java.time.Duration;

/**
 * The timer a {@link Retrier} uses when none was set: one {@link DeadlineTimer} for the whole JVM,
 * whose daemon thread starts with the first deadline (a retrier without timeouts never starts it) and
 * ends after it has been idle a while. It is never closed; an application that must close its timers
 * sets one of its own with {@link Retrier.Builder#timer}, as the Spring Boot auto-configuration does.
 */
final class SharedTimer {

    /** The shared timer. */
    static final AttemptScope.Timer TIMER = new AttemptScope.Timer() {

        private final DeadlineTimer timer = new DeadlineTimer("inference-retry-timer");

        @Override
        public CallContext.Registration schedule(Duration delay, Runnable action) {
            return this.timer.schedule(delay, action);
        }

        @Override
        public long nanoTime() {
            return this.timer.nanoTime();
        }

        @Override
        public String toString() {
            return "SharedTimer";
        }
    };

    private SharedTimer() {
    }
}
