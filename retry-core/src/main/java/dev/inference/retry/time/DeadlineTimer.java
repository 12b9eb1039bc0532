package dev.inference.retry.time;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The timer of attempt timeouts, stream watches and waits that must not block: one daemon thread,
 * started by the first deadline and ended after it has been idle a while. Almost every timeout is
 * withdrawn long before it passes (the attempt answered), so a call's side takes no lock and wakes no
 * thread: scheduling adds the deadline to a lock-free inbox, dropping the ended ones at its head, and
 * withdrawing only marks it ended. The thread sorts what was added when it wakes: for the earliest
 * pending deadline and, while any is pending, at most once a second besides, to drop the withdrawn
 * ones that a deadline still pending kept in the inbox, so that what they hold stays bounded by about a
 * second of traffic. A call that woke the thread each time would pay a thread's wake-up, which on a
 * small virtual machine costs more than the rest of the retry.
 *
 * <p>Closing it abandons what is pending, so that no call hangs on a task that will never run: a wait
 * is told {@linkplain WaitScheduler.Wait#abandoned() abandoned} and a timeout runs at once, abandoning
 * its attempt. Afterwards, a wait is abandoned at once and a timeout refused with a
 * {@link RejectedExecutionException}. Thread-safe; each deadline ends exactly once.
 *
 * <p>Trap: its actions run one after the other on its one thread; an action that blocks delays every
 * other deadline.
 */
public final class DeadlineTimer implements AttemptScope.Timer, WaitScheduler, AutoCloseable {

    /** How long the idle thread lives on, so that a burst of retries does not start one each time. */
    private static final long IDLE_THREAD_SECONDS = 10;

    /**
     * How often, at most, the thread wakes to drop withdrawn deadlines while some are pending: rarely
     * enough to cost nothing, often enough that a burst of withdrawn deadlines is not held for the
     * 30 seconds of a typical timeout.
     */
    private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** How many ended deadlines an add drops from the head of the inbox at most, so that no add takes long. */
    private static final int DROPPED_PER_ADD = 4;

    /** {@link #armedFor} when no wake-up is set. */
    private static final long NONE = Long.MAX_VALUE;

    /** The deadlines added since the thread last woke, pending or ended; any thread adds, the thread drains. */
    private final Queue<Deadline> inbox = new ConcurrentLinkedQueue<>();

    /** Guarded by the lock: the deadlines drained from the inbox, earliest first; may hold ended ones. */
    private final PriorityQueue<Deadline> heap = new PriorityQueue<>();

    /** The deadlines taken from the heap as due: filled and emptied under the lock, run outside it. */
    private final List<Deadline> due = new ArrayList<>();

    /** Guarded by the lock: the next arrival's number, which orders deadlines of the same time. */
    private long arrivals;

    /** Guarded by the lock: when the thread last dropped the withdrawn deadlines from the heap. */
    private long sweptAt;

    private final Alarm alarm;

    private final LongSupplier clock;

    /** The clock's reading that deadlines count from, so that they compare without overflow. */
    private final long origin;

    /** Guards the heap and the wake-up's setting; never held while an action runs. Not a monitor: see the core's rules. */
    private final ReentrantLock lock = new ReentrantLock();

    /** When the wake-up that is set rings, counted from the origin; written under the lock. */
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
        return add(delay, action, action);
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
        return add(delay, wait::elapsed, wait::abandoned);
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
     * them one by one under the timer's lock: for tests and diagnostics, not for every call.
     *
     * @return the number of pending deadlines
     */
    public int pending() {
        this.lock.lock();
        try {
            int pending = 0;
            for (Deadline deadline : held()) {
                pending += deadline.isPending() ? 1 : 0;
            }
            return pending;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Returns how many deadlines the timer holds, pending or ended but not dropped yet, and how many
     * of them still hold an action; for tests of what a withdrawn deadline retains.
     */
    Retained retained() {
        this.lock.lock();
        try {
            int deadlines = 0;
            int actions = 0;
            for (Deadline deadline : held()) {
                deadlines++;
                actions += deadline.holdsAction() ? 1 : 0;
            }
            return new Retained(deadlines, actions);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Under the lock: every deadline the timer holds, wherever it is. */
    private List<Deadline> held() {
        List<Deadline> held = new ArrayList<>(this.due);
        held.addAll(this.heap);
        held.addAll(this.inbox);
        return held;
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
        List<Deadline> abandoned = new ArrayList<>();
        this.lock.lock();
        try {
            // Set before the inbox is drained: an add that the drain misses sees it, and abandons its own.
            this.closed = true;
            this.alarm.close();
            this.ring = null;
            this.armedFor = NONE;
            drainInbox();
            abandoned.addAll(this.due);
            for (Deadline deadline = this.heap.poll(); deadline != null; deadline = this.heap.poll()) {
                abandoned.add(deadline);
            }
        }
        finally {
            this.lock.unlock();
        }
        for (Deadline deadline : abandoned) {
            deadline.abandon();
        }
    }

    private Deadline add(Duration delay, Runnable fire, Runnable abandon) {
        long now = this.clock.getAsLong() - this.origin;
        long delayNanos = Durations.toWaitNanos(delay);
        Deadline deadline = new Deadline((delayNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + delayNanos,
                fire, abandon);
        dropEndedHead();
        this.inbox.add(deadline);
        if (this.closed) {
            // Closed meanwhile: its drain may have run before this deadline was added, and no other will.
            this.inbox.remove(deadline);
            deadline.abandon();
        }
        else {
            // With no wake-up set, one within a second: withdrawn or not, the deadline is dropped by then.
            long wakeUp = Math.min(deadline.at, now + SWEEP_NANOS);
            if (wakeUp < this.armedFor) {
                arm(wakeUp);
            }
        }
        return deadline;
    }

    /**
     * Drops a few ended deadlines from the head of the inbox. When attempts answer in time, the usual
     * case, the deadline at the head is the one just withdrawn, so the inbox stays short and a withdrawn
     * deadline dies young; left to the thread's sweep, a second of them would live through young
     * collections, which at millions of timed calls a second costs more than the timeouts themselves.
     */
    private void dropEndedHead() {
        for (int dropped = 0; dropped < DROPPED_PER_ADD; dropped++) {
            Deadline head = this.inbox.peek();
            if (head == null || head.isPending() || !this.inbox.remove(head)) {
                return;
            }
        }
    }

    /** Sets the wake-up for {@code wakeUp}, unless one is set for it or earlier already. */
    private void arm(long wakeUp) {
        this.lock.lock();
        try {
            if (!this.closed && wakeUp < this.armedFor) {
                set(wakeUp, this.clock.getAsLong() - this.origin);
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
            if (this.closed) {
                return;
            }
            drainInbox();
            long now = this.clock.getAsLong() - this.origin;
            for (Deadline first = this.heap.peek(); first != null && first.at <= now; first = this.heap.peek()) {
                this.due.add(this.heap.remove());
            }
        }
        finally {
            this.lock.unlock();
        }
        try {
            // Outside the lock: a deadline withdrawn meanwhile does not run, as it ends once.
            for (Deadline deadline : this.due) {
                deadline.fire();
            }
        }
        finally {
            rearm();
        }
    }

    /** On the timer's thread, after running what was due: sweeps if it is time, then sets the next wake-up. */
    private void rearm() {
        this.lock.lock();
        try {
            if (this.closed) {
                // Closing abandoned what was due and did not run.
                this.due.clear();
                return;
            }
            for (Deadline cutShort : this.due) {
                // Still pending only if an action threw an error past the others: they run at the next wake-up.
                if (cutShort.isPending()) {
                    this.heap.add(cutShort);
                }
            }
            this.due.clear();
            long now = this.clock.getAsLong() - this.origin;
            if (now - this.sweptAt >= SWEEP_NANOS) {
                this.heap.removeIf((deadline) -> !deadline.isPending());
                this.sweptAt = now;
            }
            long wakeUp;
            do {
                drainInbox();
                wakeUp = nextWakeUp();
                // Written before the inbox is read again: an add that this drain misses sees it.
                this.armedFor = wakeUp;
            }
            while (!this.inbox.isEmpty());
            set(wakeUp, now);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Under the lock: moves what was added into the heap, in order of arrival, dropping what has ended. */
    private void drainInbox() {
        for (Deadline added = this.inbox.poll(); added != null; added = this.inbox.poll()) {
            if (added.isPending()) {
                added.arrival = this.arrivals++;
                this.heap.add(added);
            }
        }
    }

    /** Under the lock: the earliest pending deadline, or the next sweep if earlier; {@link #NONE} if none is pending. */
    private long nextWakeUp() {
        Deadline first = this.heap.peek();
        while (first != null && !first.isPending()) {
            this.heap.remove();
            first = this.heap.peek();
        }
        return (first != null) ? Math.min(first.at, this.sweptAt + SWEEP_NANOS) : NONE;
    }

    /** Under the lock: replaces the wake-up that is set, if any, with one at {@code wakeUp}, or {@link #NONE}. */
    private void set(long wakeUp, long now) {
        Alarm.@Nullable Ring previous = this.ring;
        if (previous != null) {
            previous.cancel();
        }
        this.ring = null;
        this.armedFor = wakeUp;
        if (wakeUp == NONE) {
            return;
        }
        try {
            this.ring = this.alarm.set(Math.max(0, wakeUp - now), this::wake);
        }
        catch (RejectedExecutionException closedMeanwhile) {
            // Only a closed alarm refuses; closing abandons what is pending.
            this.ring = null;
            this.armedFor = NONE;
        }
    }

    @Override
    public String toString() {
        return "DeadlineTimer[" + (isStarted() ? "started" : "idle") + ", " + this.alarm + "]";
    }

    /** How many deadlines a timer holds, and how many of them still hold an action. */
    record Retained(int deadlines, int actions) {
    }

    /**
     * One deadline, which is also its registration: ends once, as withdrawn, run or abandoned, decided
     * by a compare-and-set of its state, and then lets go of its actions. Ordered by time, then by
     * arrival, which the timer's thread numbers as it drains the inbox.
     */
    private static final class Deadline
            implements Comparable<Deadline>, CallContext.Registration, WaitScheduler.Scheduled {

        private static final int PENDING = 0;

        private static final int WITHDRAWN = 1;

        private static final int RAN = 2;

        private static final int ABANDONED = 3;

        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Deadline.class, "state", int.class);
            }
            catch (ReflectiveOperationException ex) {
                throw new ExceptionInInitializerError(ex);
            }
        }

        private final long at;

        /** Set by the timer's thread, under its lock, before the deadline enters the heap. */
        private long arrival;

        private @Nullable Runnable fire;

        private @Nullable Runnable abandon;

        /** {@link #PENDING} until it ends; left to its default, as a volatile write would cost each deadline a fence. */
        private volatile int state;

        Deadline(long at, Runnable fire, Runnable abandon) {
            this.at = at;
            this.fire = fire;
            this.abandon = abandon;
        }

        /** Withdraws it, if it has not ended: the timer's thread drops it when it next comes across it. */
        @Override
        public void close() {
            end(WITHDRAWN);
        }

        @Override
        public void cancel() {
            end(WITHDRAWN);
        }

        boolean isPending() {
            return this.state == PENDING;
        }

        boolean holdsAction() {
            return this.fire != null || this.abandon != null;
        }

        /** Fires it, reporting what it throws to the thread's handler so that later deadlines still run. */
        void fire() {
            Runnable action = end(RAN);
            if (action != null) {
                try {
                    action.run();
                }
                catch (RuntimeException ex) {
                    Thread thread = Thread.currentThread();
                    thread.getUncaughtExceptionHandler().uncaughtException(thread, ex);
                }
            }
        }

        void abandon() {
            Runnable action = end(ABANDONED);
            if (action != null) {
                action.run();
            }
        }

        /** Ends it if pending, letting go of its actions; returns the one to run, or null if it had ended. */
        private @Nullable Runnable end(int how) {
            if (!STATE.compareAndSet(this, PENDING, how)) {
                return null;
            }
            Runnable action = (how == ABANDONED) ? this.abandon : this.fire;
            this.fire = null;
            this.abandon = null;
            return action;
        }

        /** Consistent with identity once in the heap: no two deadlines there share an arrival. */
        @Override
        public int compareTo(Deadline other) {
            int byTime = Long.compare(this.at, other.at);
            return (byTime != 0) ? byTime : Long.compare(this.arrival, other.arrival);
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
