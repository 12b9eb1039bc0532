package dev.inference.retry.autoconfigure;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The one timer of an application context's retried beans: the attempt timeouts and stream watches
 * of every retrier ({@link AttemptScope.Timer}) and the waits of the integrations that must not block,
 * such as the Spring AI models' asynchronous exchanges ({@link WaitScheduler}). One daemon thread,
 * started by the first task (an application with no timeout and no asynchronous retry starts none),
 * ended after it has been idle a while; withdrawn tasks leave its queue at once.
 *
 * <p>Closing it (the context does, as it closes) abandons what is pending, so that no call hangs on a
 * task that will never run: a wait is told {@linkplain WaitScheduler.Wait#abandoned() abandoned}, and
 * an attempt's timeout runs at once, abandoning the attempt. Anything scheduled afterwards is
 * abandoned at once, an attempt's timeout refused with a {@link RejectedExecutionException}, which a
 * retrier reports as the attempt not started. Thread-safe.
 */
public final class RetryTimer implements AttemptScope.Timer, WaitScheduler, AutoCloseable {

    /** How long the idle thread lives on, so that a burst of retries does not start one each time. */
    private static final long IDLE_THREAD_SECONDS = 10;

    private final Set<Task> pending = ConcurrentHashMap.newKeySet();

    private volatile @Nullable ScheduledThreadPoolExecutor executor;

    private volatile boolean closed;

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
        if (this.closed) {
            throw new RejectedExecutionException("The application context is closed");
        }
        return schedule(delay, action, action)::cancel;
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
        return schedule(delay, wait::elapsed, wait::abandoned)::cancel;
    }

    private Task schedule(Duration delay, Runnable fire, Runnable abandon) {
        Task task = new Task(fire, abandon);
        this.pending.add(task);
        if (this.closed) {
            task.abandon();
            return task;
        }
        try {
            task.future = executor().schedule(task::fire, Durations.toWaitNanos(delay), TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException closedMeanwhile) {
            task.abandon();
        }
        return task;
    }

    private ScheduledThreadPoolExecutor executor() {
        ScheduledThreadPoolExecutor started = this.executor;
        return (started != null) ? started : start();
    }

    private synchronized ScheduledThreadPoolExecutor start() {
        ScheduledThreadPoolExecutor made = this.executor;
        if (made == null) {
            made = new ScheduledThreadPoolExecutor(1, (task) -> {
                Thread thread = new Thread(task, "inference-retry-timer");
                thread.setDaemon(true);
                return thread;
            });
            // A withdrawn timeout of five minutes must not stay in the queue for five minutes.
            made.setRemoveOnCancelPolicy(true);
            made.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
            made.allowCoreThreadTimeOut(true);
            this.executor = made;
            if (this.closed) {
                made.shutdownNow();
            }
        }
        return made;
    }

    /**
     * Returns how many tasks (waits, timeouts, watches) have neither run, nor been withdrawn, nor been
     * abandoned.
     *
     * @return the number of pending tasks
     */
    public int pendingWaits() {
        return this.pending.size();
    }

    /** Tells whether the timer's thread was ever started, for tests. */
    boolean isStarted() {
        return this.executor != null;
    }

    /**
     * Stops the timer's thread and abandons every pending task, as the class documentation says.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            this.closed = true;
            ScheduledThreadPoolExecutor started = this.executor;
            if (started != null) {
                started.shutdownNow();
            }
        }
        for (Task task : this.pending) {
            task.abandon();
        }
    }

    @Override
    public String toString() {
        return "RetryTimer[" + (isStarted() ? "started" : "idle") + "]";
    }

    /** One scheduled task, which ends once: fired, withdrawn or abandoned. */
    private final class Task {

        private final Runnable fire;

        private final Runnable abandon;

        private volatile @Nullable ScheduledFuture<?> future;

        Task(Runnable fire, Runnable abandon) {
            this.fire = fire;
            this.abandon = abandon;
        }

        void fire() {
            if (RetryTimer.this.pending.remove(this)) {
                this.fire.run();
            }
        }

        void abandon() {
            if (RetryTimer.this.pending.remove(this)) {
                this.abandon.run();
            }
        }

        void cancel() {
            if (RetryTimer.this.pending.remove(this)) {
                ScheduledFuture<?> scheduled = this.future;
                if (scheduled != null) {
                    scheduled.cancel(false);
                }
            }
        }
    }
}
