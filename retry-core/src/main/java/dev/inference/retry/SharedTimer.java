package dev.inference.retry;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The timer a {@link Retrier} uses when none was set: one daemon thread for the whole JVM, started
 * by the first task scheduled (a retrier without timeouts never starts it), whose withdrawn tasks
 * leave its queue at once. It never stops; an application that must stop its threads sets a timer of
 * its own with {@link Retrier.Builder#timer}, as the Spring Boot auto-configuration does.
 */
final class SharedTimer {

    /** The shared timer: each call reaches the executor through its holder, made on first use. */
    static final AttemptScope.Timer TIMER = new AttemptScope.Timer() {

        @Override
        public CallContext.Registration schedule(Duration delay, Runnable action) {
            return Holder.TIMER.schedule(delay, action);
        }

        @Override
        public String toString() {
            return "SharedTimer";
        }
    };

    private SharedTimer() {
    }

    private static final class Holder {

        static final AttemptScope.Timer TIMER = AttemptScope.Timer.of(executor());

        private static ScheduledThreadPoolExecutor executor() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
                Thread thread = new Thread(task, "inference-retry-timer");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }
    }
}
