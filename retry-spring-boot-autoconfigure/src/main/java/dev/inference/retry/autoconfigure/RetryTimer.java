package dev.inference.retry.autoconfigure;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.retry.time.DeadlineTimer;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * The one timer of an application context's retried beans: the attempt timeouts and stream watches
 * of every retrier ({@link AttemptScope.Timer}) and the waits of the integrations that must not block,
 * such as the Spring AI models' asynchronous exchanges ({@link WaitScheduler}). A {@link DeadlineTimer}:
 * one daemon thread, started by the first task (an application with no timeout and no asynchronous
 * retry starts none), ended after it has been idle a while, woken for the earliest deadline and, while
 * deadlines are pending, at most once a second to drop those withdrawn.
 *
 * <p>Closing it (the context does, as it closes) abandons what is pending, so that no call hangs on a
 * task that will never run: a wait is told {@linkplain WaitScheduler.Wait#abandoned() abandoned}, and
 * an attempt's timeout runs at once, abandoning the attempt. Anything scheduled afterwards is
 * abandoned at once, an attempt's timeout refused with a {@link RejectedExecutionException}, which a
 * retrier reports as the attempt not started. Thread-safe.
 */
public final class RetryTimer implements AttemptScope.Timer, WaitScheduler, AutoCloseable {

    private final DeadlineTimer timer = new DeadlineTimer("inference-retry-timer");

    /** Creates a timer; its thread starts with the first task. */
    public RetryTimer() {
    }

    /**
     * Schedules an attempt's timeout, or a stream's watch.
     *
     * @param delay how long to wait
     * @param action what to run once the delay has passed, on the timer's thread; or at once, on the
     *     closing thread, if the timer closes first
     * @return the registration, whose {@code close()} withdraws the action if it has not run
     * @throws RejectedExecutionException if the timer is closed
     */
    @Override
    public CallContext.Registration schedule(Duration delay, Runnable action) {
        return this.timer.schedule(delay, action);
    }

    /**
     * Schedules the end of a wait.
     *
     * @param delay how long to wait; zero or negative ends the wait at once on the timer's thread
     * @param wait told {@linkplain WaitScheduler.Wait#elapsed() elapsed} on the timer's thread, or
     *     {@linkplain WaitScheduler.Wait#abandoned() abandoned} when the timer closes first (at once, if
     *     it is closed already)
     * @return the scheduled wait
     */
    @Override
    public Scheduled schedule(Duration delay, Wait wait) {
        return this.timer.schedule(delay, wait);
    }

    /**
     * Returns how many tasks (waits, timeouts, watches) have neither run, nor been withdrawn, nor been
     * abandoned.
     *
     * @return the number of pending tasks
     */
    public int pendingWaits() {
        return this.timer.pending();
    }

    /** Tells whether the timer's thread was ever started, for tests. */
    boolean isStarted() {
        return this.timer.isStarted();
    }

    /**
     * Stops the timer's thread and abandons every pending task, as the class documentation says.
     * Idempotent.
     */
    @Override
    public void close() {
        this.timer.close();
    }

    @Override
    public String toString() {
        return "RetryTimer[" + (isStarted() ? "started" : "idle") + "]";
    }
}
