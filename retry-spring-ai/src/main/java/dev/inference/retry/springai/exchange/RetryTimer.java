package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.Durations;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ends the non-blocking waits of retried exchanges: one daemon thread, which exists only while a wait
 * is pending, for every retried client of an application.
 *
 * <p>A wait is a {@link Timeout}: it fires once its delay has passed, unless it was cancelled first.
 * Closing the timer abandons every pending wait at once (each is told, so that its call fails instead
 * of hanging), and makes every later {@link #schedule} abandon its wait at once. Thread-safe.
 */
public final class RetryTimer implements AutoCloseable {

    /** How long the idle timer thread lives on, so that a burst of retries does not start one each time. */
    private static final long IDLE_THREAD_SECONDS = 10;

    private static final AtomicInteger TIMERS = new AtomicInteger();

    private final ScheduledThreadPoolExecutor executor;

    private final Set<Timeout> pending = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    /** Creates a timer; its thread starts with the first wait and ends when it has been idle a while. */
    public RetryTimer() {
        String name = "inference-retry-timer-" + TIMERS.incrementAndGet();
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        // A cancelled wait of five minutes must not stay in the queue for five minutes.
        this.executor.setRemoveOnCancelPolicy(true);
        this.executor.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Schedules a wait.
     *
     * @param delay how long to wait; zero or negative fires at once on the timer thread
     * @param timeout what to do when the delay has passed, or when the timer is closed first
     * @return the scheduled wait, which its owner cancels when the wait ends otherwise
     */
    Scheduled schedule(Duration delay, Timeout timeout) {
        this.pending.add(timeout);
        if (this.closed) {
            abandon(timeout);
            return () -> {
            };
        }
        ScheduledFuture<?> future;
        try {
            future = this.executor.schedule(() -> {
                if (this.pending.remove(timeout)) {
                    timeout.fire();
                }
            }, Durations.toWaitNanos(delay), TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException closedMeanwhile) {
            abandon(timeout);
            return () -> {
            };
        }
        return () -> {
            if (this.pending.remove(timeout)) {
                future.cancel(false);
            }
        };
    }

    /**
     * Returns this timer as the timer of attempt timeouts ({@link dev.inference.client.AttemptScope}):
     * an attempt's timeout runs on the timer thread, never on a transport's thread. A timeout pending
     * when the timer closes runs at once, so that no attempt outlives its application hanging.
     *
     * @return the attempt timer, whose registrations withdraw their timeouts
     */
    AttemptScope.Timer attemptTimer() {
        return (delay, action) -> schedule(delay, new Timeout() {

            @Override
            public void fire() {
                action.run();
            }

            @Override
            public void abandon() {
                action.run();
            }
        })::cancel;
    }

    /**
     * Returns how many waits have neither fired, nor been cancelled, nor been abandoned.
     *
     * @return the number of pending waits
     */
    public int pendingWaits() {
        return this.pending.size();
    }

    /**
     * Stops the timer thread and abandons every pending wait. Idempotent.
     */
    @Override
    public void close() {
        this.closed = true;
        this.executor.shutdownNow();
        for (Timeout timeout : this.pending) {
            abandon(timeout);
        }
    }

    private void abandon(Timeout timeout) {
        if (this.pending.remove(timeout)) {
            timeout.abandon();
        }
    }

    @Override
    public String toString() {
        return "RetryTimer[pending=" + this.pending.size() + (this.closed ? ", closed" : "") + "]";
    }

    /** What a wait does when it ends on the timer's side. */
    interface Timeout {

        /** The delay has passed. Runs on the timer thread; must not block. */
        void fire();

        /** The timer was closed before the delay passed. */
        void abandon();
    }

    /** A scheduled wait, seen by its owner. */
    @FunctionalInterface
    interface Scheduled {

        /** Withdraws the wait, if it has not fired or been abandoned yet. Idempotent. */
        void cancel();
    }
}
