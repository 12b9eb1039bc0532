package dev.inference.retry.time;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The timer of attempt timeouts, stream watches and waits that must not block: one daemon thread,
 * started by the first deadline and ended after it has been idle a while, that wakes only for the
 * earliest pending deadline. Scheduling a deadline no earlier than that one, and withdrawing any,
 * touch no other thread: a sorted set takes them. Almost every timeout is withdrawn long before it
 * passes (the attempt answered), and a call that woke the timer's thread each time would pay a
 * thread's wake-up, which on a small virtual machine costs more than the rest of the retry.
 *
 * <p>Closing it abandons what is pending, so that no call hangs on a task that will never run: a wait
 * is told {@linkplain WaitScheduler.Wait#abandoned() abandoned} and a timeout runs at once, abandoning
 * its attempt. Afterwards, a wait is abandoned at once and a timeout refused with a
 * {@link RejectedExecutionException}. Thread-safe.
 *
 * <p>Trap: its actions run one after the other on its one thread; an action that blocks delays every
 * other deadline.
 */
public final class DeadlineTimer implements AttemptScope.Timer, WaitScheduler, AutoCloseable {

    /** How long the idle thread lives on, so that a burst of retries does not start one each time. */
    private static final long IDLE_THREAD_SECONDS = 10;

    /** {@link #armedFor} when no wake-up is set. */
    private static final long NONE = Long.MAX_VALUE;

    /** The pending deadlines, earliest first; the values are unused. */
    private final ConcurrentSkipListMap<Deadline, Boolean> pending = new ConcurrentSkipListMap<>();

    private final AtomicLong sequence = new AtomicLong();

    private final Alarm alarm;

    private final LongSupplier clock;

    /** The clock's reading that deadlines count from, so that they compare without overflow. */
    private final long origin;

    /** Guards the wake-up's setting; never held while an action runs. Not a monitor: see the core's rules. */
    private final ReentrantLock lock = new ReentrantLock();

    /** When the wake-up that is set rings, as a deadline; written under the lock. */
    private volatile long armedFor = NONE;

    /** Guarded by the lock: the wake-up that is set. */
    private Alarm.@Nullable Ring ring;

    private volatile boolean closed;

    /**
     * Creates a timer whose thread, named {@code threadName}, starts with the first deadline.
     *
     * @param threadName the name of the timer's thread
     */
    public DeadlineTimer(String threadName) {
        this(new ExecutorAlarm(Objects.requireNonNull(threadName, "threadName must not be null")), System::nanoTime);
    }

    /**
     * Creates a timer that sets its wake-ups on an alarm and reads a clock, which tests run in
     * virtual time.
     */
    DeadlineTimer(Alarm alarm, LongSupplier clock) {
        this.alarm = alarm;
        this.clock = clock;
        this.origin = clock.getAsLong();
    }

    /**
     * Schedules an attempt's timeout, or a stream's watch.
     *
     * @param delay how long to wait; zero or negative runs the action as soon as possible
     * @param action what to run once the delay has passed, on the timer's thread; or at once, on the
     *     closing thread, if the timer closes first
     * @return the registration, whose {@code close()} withdraws the action if it has not run
     * @throws RejectedExecutionException if the timer is closed
     */
    @Override
    public CallContext.Registration schedule(Duration delay, Runnable action) {
        Objects.requireNonNull(action, "action must not be null");
        if (this.closed) {
            throw new RejectedExecutionException("The timer is closed");
        }
        return add(delay, action, action)::withdraw;
    }

    /**
     * Schedules the end of a wait.
     *
     * @param delay how long to wait; zero or negative ends the wait as soon as possible on the timer's
     *     thread
     * @param wait told {@linkplain WaitScheduler.Wait#elapsed() elapsed} on the timer's thread, or
     *     {@linkplain WaitScheduler.Wait#abandoned() abandoned} when the timer closes first (at once, if
     *     it is closed already)
     * @return the scheduled wait
     */
    @Override
    public Scheduled schedule(Duration delay, Wait wait) {
        Objects.requireNonNull(wait, "wait must not be null");
        return add(delay, wait::elapsed, wait::abandoned)::withdraw;
    }

    /**
     * Returns the timer's clock, in nanoseconds from an arbitrary origin.
     *
     * @return the current reading
     */
    @Override
    public long nanoTime() {
        return this.clock.getAsLong();
    }

    /**
     * Returns how many deadlines have neither passed, nor been withdrawn, nor been abandoned. Counts
     * them one by one: for tests and diagnostics, not for every call.
     *
     * @return the number of pending deadlines
     */
    public int pending() {
        return this.pending.size();
    }

    /**
     * Tells whether the timer's thread was ever started.
     *
     * @return {@code true} once a deadline has been waited for
     */
    public boolean isStarted() {
        return this.alarm.isStarted();
    }

    /**
     * Stops the timer's thread and abandons every pending deadline, as the class documentation says.
     * Idempotent.
     */
    @Override
    public void close() {
        this.lock.lock();
        try {
            this.closed = true;
            this.alarm.close();
        }
        finally {
            this.lock.unlock();
        }
        for (Map.Entry<Deadline, Boolean> entry = this.pending.pollFirstEntry(); entry != null;
                entry = this.pending.pollFirstEntry()) {
            entry.getKey().abandon.run();
        }
    }

    private Deadline add(Duration delay, Runnable fire, Runnable abandon) {
        Deadline deadline = new Deadline(after(Durations.toWaitNanos(delay)), this.sequence.getAndIncrement(), fire,
                abandon);
        this.pending.put(deadline, Boolean.TRUE);
        if (this.closed) {
            // Closed meanwhile: its sweep may have run before this deadline was added.
            if (this.pending.remove(deadline) != null) {
                abandon.run();
            }
        }
        else if (deadline.at < this.armedFor) {
            arm();
        }
        return deadline;
    }

    /** The deadline {@code delayNanos} from now, counted from the origin, saturated rather than overflowing. */
    private long after(long delayNanos) {
        long now = this.clock.getAsLong() - this.origin;
        return (delayNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + delayNanos;
    }

    /** Sets the wake-up for the earliest pending deadline, unless one is set for it or earlier already. */
    private void arm() {
        this.lock.lock();
        try {
            Deadline first = firstPending();
            if (this.closed || first == null || first.at >= this.armedFor) {
                return;
            }
            Alarm.@Nullable Ring previous = this.ring;
            if (previous != null) {
                previous.cancel();
            }
            this.armedFor = first.at;
            long delay = Math.max(0, first.at - (this.clock.getAsLong() - this.origin));
            try {
                this.ring = this.alarm.set(delay, this::wake);
            }
            catch (RejectedExecutionException closedMeanwhile) {
                // Only a closed alarm refuses; closing abandons what is pending.
                this.ring = null;
                this.armedFor = NONE;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** On the timer's thread: runs what is due, then sets the next wake-up. */
    private void wake() {
        this.lock.lock();
        try {
            this.ring = null;
            this.armedFor = NONE;
        }
        finally {
            this.lock.unlock();
        }
        try {
            long now = this.clock.getAsLong() - this.origin;
            for (Deadline first = firstPending(); first != null && first.at <= now; first = firstPending()) {
                if (this.pending.remove(first) != null) {
                    first.run();
                }
            }
        }
        finally {
            arm();
        }
    }

    private @Nullable Deadline firstPending() {
        Map.Entry<Deadline, Boolean> first = this.pending.firstEntry();
        return (first != null) ? first.getKey() : null;
    }

    @Override
    public String toString() {
        return "DeadlineTimer[" + (isStarted() ? "started" : "idle") + ", " + this.alarm + "]";
    }

    /** One deadline: ends once, as fired, withdrawn or abandoned. Ordered by when, then by when made. */
    private final class Deadline implements Comparable<Deadline> {

        private final long at;

        private final long sequence;

        private final Runnable fire;

        private final Runnable abandon;

        Deadline(long at, long sequence, Runnable fire, Runnable abandon) {
            this.at = at;
            this.sequence = sequence;
            this.fire = fire;
            this.abandon = abandon;
        }

        /** Withdraws it; the wake-up set for it, if any, rings for nothing. */
        void withdraw() {
            DeadlineTimer.this.pending.remove(this);
        }

        /** Fires it, reporting what it throws to the thread's handler so that later deadlines still run. */
        void run() {
            try {
                this.fire.run();
            }
            catch (RuntimeException ex) {
                Thread thread = Thread.currentThread();
                thread.getUncaughtExceptionHandler().uncaughtException(thread, ex);
            }
        }

        /** Consistent with identity, which {@code equals} keeps: no two deadlines share a sequence number. */
        @Override
        public int compareTo(Deadline other) {
            int byTime = Long.compare(this.at, other.at);
            return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
        }
    }

    /**
     * Where the timer sets its one wake-up: a thread of its own in production, virtual time in tests.
     * The timer sets and closes it under its lock only, never from two threads at once.
     */
    interface Alarm extends AutoCloseable {

        /**
         * Sets a wake-up.
         *
         * @param delayNanos how long from now, not negative
         * @param wake what to run then, on the alarm's thread
         * @return the wake-up, to cancel when an earlier one replaces it
         * @throws RejectedExecutionException once closed
         */
        Ring set(long delayNanos, Runnable wake);

        /** Tells whether the alarm's thread was ever started. */
        boolean isStarted();

        /** Stops the alarm: what is set never rings, and later wake-ups are refused. */
        @Override
        void close();

        /** A wake-up that was set. */
        @FunctionalInterface
        interface Ring {

            /** Withdraws the wake-up if it has not rung. */
            void cancel();
        }
    }

    /**
     * The production alarm: one daemon thread of a {@link ScheduledThreadPoolExecutor}, started on first
     * use. Set and closed under the timer's lock only.
     */
    private static final class ExecutorAlarm implements Alarm {

        private final String threadName;

        private volatile @Nullable ScheduledThreadPoolExecutor executor;

        private boolean closed;

        ExecutorAlarm(String threadName) {
            this.threadName = threadName;
        }

        @Override
        public Ring set(long delayNanos, Runnable wake) {
            if (this.closed) {
                throw new RejectedExecutionException("The timer is closed");
            }
            ScheduledFuture<?> scheduled = executor().schedule(wake, delayNanos, TimeUnit.NANOSECONDS);
            return () -> scheduled.cancel(false);
        }

        private ScheduledThreadPoolExecutor executor() {
            ScheduledThreadPoolExecutor started = this.executor;
            if (started == null) {
                started = new ScheduledThreadPoolExecutor(1, (task) -> {
                    Thread thread = new Thread(task, this.threadName);
                    thread.setDaemon(true);
                    return thread;
                });
                // A replaced wake-up must not stay in the queue until its time.
                started.setRemoveOnCancelPolicy(true);
                started.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
                started.allowCoreThreadTimeOut(true);
                this.executor = started;
            }
            return started;
        }

        @Override
        public boolean isStarted() {
            return this.executor != null;
        }

        @Override
        public void close() {
            this.closed = true;
            ScheduledThreadPoolExecutor started = this.executor;
            if (started != null) {
                started.shutdownNow();
            }
        }

        @Override
        public String toString() {
            return "thread " + this.threadName;
        }
    }
}
