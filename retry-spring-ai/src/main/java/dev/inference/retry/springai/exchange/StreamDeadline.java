package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The one timer deadline of a stream's attempt that has both a {@code first-token-timeout} and a
 * {@code stream-idle-timeout} (SPEC §11): it times the attempt's scope until the stream's content has
 * begun, and is then {@linkplain #adopt taken over} by the stream's {@link IdleWatchedStream}, so that a
 * stream that succeeds adds one deadline to the timer and withdraws one, where two timeouts would add
 * and withdraw two, on the threads that the stream's latency waits for.
 *
 * <p>Given to {@link CallContext#startAttempt(Duration, AttemptScope.Timer)} as the scope's timer, it
 * schedules its first check at the shorter of the two timeouts, so that it can serve the idle watch
 * whenever the content begins: a check that comes before the first-token timeout has passed, the
 * content not begun, waits again, for the rest of the first-token timeout or the idle timeout, whichever
 * is shorter. Closing the scope (this deadline is its registration) withdraws it, unless the watch took
 * it over; the registration that the watch was given withdraws it then.
 *
 * <p>Traps: it serves one scope, once; its checks run on the real timer's thread and must stay quick,
 * as the scope's and the watch's actions are. When the timer closes before the content has begun, the
 * attempt is abandoned as its first-token timeout would abandon it, whichever timeout is shorter.
 */
final class StreamDeadline implements AttemptScope.Timer, CallContext.Registration {

    /** The scope's timeout runs: the content has not begun. */
    private static final int FIRST_TOKEN = 0;

    /** The idle watch took the deadline over. */
    private static final int WATCHING = 1;

    /** The first-token timeout passed and ended the attempt. */
    private static final int EXPIRED = 2;

    /** Withdrawn: the scope closed before any watch, or the watch ended. */
    private static final int OVER = 3;

    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(StreamDeadline.class, "phase", int.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final AttemptScope.Timer timer;

    private final long idleNanos;

    /** When the first-token timeout passes, on the timer's clock; set by {@link #schedule}. */
    private long firstTokenAt;

    /** The scope's action for a passed first-token timeout; set by {@link #schedule}. */
    private @Nullable Runnable expire;

    /** The watch's check; set by {@link #adopt} before the phase that publishes it. */
    private @Nullable Runnable watch;

    /** The deadline on the real timer that runs {@link #due} next. */
    private volatile CallContext.@Nullable Registration pending;

    /** Changed by compare-and-set only: {@link #FIRST_TOKEN} until it ends or is taken over. */
    private volatile int phase;

    /**
     * Makes the deadline of one stream's attempt.
     *
     * @param timer the retrier's timer, on which the deadline runs
     * @param idle the stream's {@code stream-idle-timeout}, positive
     */
    StreamDeadline(AttemptScope.Timer timer, Duration idle) {
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.idleNanos = Durations.toWaitNanos(idle);
    }

    /**
     * Schedules the scope's first-token timeout, once: the first check comes at the shorter of it and
     * the idle timeout.
     *
     * @param firstToken the {@code first-token-timeout}
     * @param expire the scope's action once it has passed
     * @return this deadline, the scope's registration, whose {@code close()} withdraws it unless the
     *     idle watch took it over
     * @throws IllegalStateException if called a second time
     */
    @Override
    public CallContext.Registration schedule(Duration firstToken, Runnable expire) {
        if (this.pending != null) {
            throw new IllegalStateException("A stream's deadline times one scope only");
        }
        long delay = Durations.toWaitNanos(firstToken);
        long now = this.timer.nanoTime();
        this.firstTokenAt = (delay > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + delay;
        this.expire = expire;
        this.pending = this.timer.schedule(Duration.ofNanos(Math.min(delay, this.idleNanos)), this::due);
        return this;
    }

    @Override
    public long nanoTime() {
        return this.timer.nanoTime();
    }

    /**
     * Takes the deadline over for a stream's idle watch, whose content has just begun: from now on a
     * check runs {@code check}, which waits again by itself for whatever is left of its timeout.
     *
     * @param check the watch's check, quick
     * @param watchNanos the watch's idle timeout: a shorter one than this deadline was made for (the
     *     settings refreshed meanwhile) could be checked too late, and is refused
     * @return the registration whose {@code close()} the watch calls when it ends, which withdraws the
     *     deadline; {@code null} if the first-token timeout passed already, the scope is closed or the
     *     watch's timeout is shorter, and the watch must schedule its own
     */
    CallContext.@Nullable Registration adopt(Runnable check, long watchNanos) {
        if (watchNanos < this.idleNanos) {
            return null;
        }
        this.watch = check;
        return PHASE.compareAndSet(this, FIRST_TOKEN, WATCHING) ? this::watchOver : null;
    }

    /** The scope's end: withdraws the deadline unless the watch took it over. */
    @Override
    public void close() {
        if (PHASE.compareAndSet(this, FIRST_TOKEN, OVER)) {
            withdraw();
        }
    }

    /** The watch's end: withdraws the deadline. */
    private void watchOver() {
        if (PHASE.compareAndSet(this, WATCHING, OVER)) {
            withdraw();
        }
    }

    /** On the timer's thread: the first-token timeout's or the watch's check, as the phase says. */
    private void due() {
        if (this.phase == FIRST_TOKEN) {
            long left = this.firstTokenAt - this.timer.nanoTime();
            if (left > 0 && waitedAgain(Math.min(left, this.idleNanos))) {
                return;
            }
            if (PHASE.compareAndSet(this, FIRST_TOKEN, EXPIRED)) {
                Objects.requireNonNull(this.expire).run();
                this.expire = null;
                return;
            }
        }
        if (this.phase == WATCHING) {
            Objects.requireNonNull(this.watch).run();
        }
    }

    /**
     * Waits again, unless the deadline ended meanwhile (the phase read after the write, as
     * {@link #withdraw} reads them the other way round). Returns {@code false} when the timer is
     * closed: closing it abandons what was pending, so the attempt ends as its timeout would end it.
     */
    private boolean waitedAgain(long nanos) {
        CallContext.Registration next;
        try {
            next = this.timer.schedule(Duration.ofNanos(nanos), this::due);
        }
        catch (RejectedExecutionException closed) {
            return false;
        }
        this.pending = next;
        if (this.phase >= EXPIRED) {
            next.close();
        }
        return true;
    }

    private void withdraw() {
        CallContext.Registration scheduled = this.pending;
        if (scheduled != null) {
            scheduled.close();
        }
    }

    @Override
    public String toString() {
        return "StreamDeadline[" + switch (this.phase) {
            case FIRST_TOKEN -> "first token";
            case WATCHING -> "watching";
            case EXPIRED -> "expired";
            default -> "over";
        } + "]";
    }
}
