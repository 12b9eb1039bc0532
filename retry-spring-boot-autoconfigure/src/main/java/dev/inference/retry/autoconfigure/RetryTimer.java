package dev.inference.retry.autoconfigure;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;

/**
 * The timer that the retried beans of one application context share for their timeouts (SPEC §11):
 * one daemon thread, started when the first attempt is timed (an application with no timeout set
 * starts none), whose withdrawn tasks leave its queue at once, shut down with the context. After that
 * it refuses new tasks with a {@link RejectedExecutionException}, which a retrier reports as the
 * attempt not started.
 */
final class RetryTimer implements AttemptScope.Timer, DisposableBean {

    private @Nullable ScheduledThreadPoolExecutor executor;

    private volatile AttemptScope.@Nullable Timer timer;

    private boolean closed;

    @Override
    public CallContext.Registration schedule(Duration delay, Runnable action) {
        AttemptScope.Timer started = this.timer;
        return ((started != null) ? started : start()).schedule(delay, action);
    }

    private synchronized AttemptScope.Timer start() {
        if (this.closed) {
            throw new RejectedExecutionException("The application context is closed");
        }
        AttemptScope.Timer made = this.timer;
        if (made == null) {
            ScheduledThreadPoolExecutor started = new ScheduledThreadPoolExecutor(1, (task) -> {
                Thread thread = new Thread(task, "inference-retry-timer");
                thread.setDaemon(true);
                return thread;
            });
            started.setRemoveOnCancelPolicy(true);
            this.executor = started;
            made = AttemptScope.Timer.of(started);
            this.timer = made;
        }
        return made;
    }

    /** Tells whether the timer's thread was started, for tests. */
    synchronized boolean isStarted() {
        return this.executor != null;
    }

    @Override
    public synchronized void destroy() {
        this.closed = true;
        if (this.executor != null) {
            this.executor.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "RetryTimer[" + (isStarted() ? "started" : "idle") + "]";
    }
}
