package dev.inference.client;

import dev.inference.failure.AttemptTimeoutException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call, seen by the retry loop that makes it: the attempt's own
 * {@linkplain #context() context}, which the loop hands to the inner client, and how that context
 * ended. Made by {@link CallContext#startAttempt(Duration, Timer)} (with a timeout) or
 * {@link CallContext#startAttempt()} (without); closed by the loop when the attempt is over.
 *
 * <p>The attempt's context is done when the caller's is (cancelled, or past its deadline), when the
 * attempt's timeout passes, or when {@link #cancel()} is called; it carries the caller's authorizer
 * and deadline. Cancelling it never cancels the caller's context. When the timeout passes or the
 * caller cancels, the actions that the inner client registered with
 * {@link CallContext#onCancel(Runnable)} run at once, so that its transport aborts the request.
 * Afterwards {@link #failureFor(RuntimeException)} says what the attempt failed with: the caller's
 * failure wins over the attempt's own timeout (SPEC §11).
 *
 * <p>Traps: close the scope when the attempt is over (try-with-resources), or the caller's context
 * keeps the attempt's registration and the timer keeps its task until it fires. The timer runs the
 * inner client's abort actions on the timer's thread: they must be quick, as
 * {@link CallContext#onCancel(Runnable)} already requires.
 */
public final class AttemptScope implements AutoCloseable {

    private enum State {
        /** The attempt runs, its timeout armed if it has one. */
        RUNNING,
        /** The attempt runs with no timeout: it had none, or {@link #cancelTimeout()} stopped it. */
        UNTIMED,
        /** The attempt's timeout passed first. */
        TIMED_OUT,
        /** {@link #cancel()} ended the attempt first. */
        CANCELLED,
        /** The caller's context was cancelled first. */
        CALLER_CANCELLED,
        /** The scope was closed while the attempt's context was not done. */
        CLOSED
    }

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AttemptScope.class, "state", State.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final CallContext caller;

    private final Cancellation cancellation = new Cancellation();

    private final CallContext context;

    private final @Nullable Duration timeout;

    /** Changed by compare-and-set only, as the transitions in {@link #end} allow. */
    private volatile State state;

    /** What an abort action threw when the timer ran it, for the timeout's failure to carry. */
    private volatile @Nullable RuntimeException abortFailure;

    private final CallContext.Registration callerCancellation;

    private volatile CallContext.Registration timer = () -> {
    };

    private AttemptScope(CallContext caller, @Nullable Duration timeout) {
        this.caller = caller;
        this.timeout = timeout;
        this.state = (timeout != null) ? State.RUNNING : State.UNTIMED;
        this.context = caller.attemptContext(this.cancellation, this);
        this.callerCancellation = caller.onCancel(() -> end(State.CALLER_CANCELLED));
    }

    /** See {@link CallContext#startAttempt()}. */
    static AttemptScope start(CallContext caller) {
        return new AttemptScope(caller, null);
    }

    /** See {@link CallContext#startAttempt(Duration, Timer)}. */
    static AttemptScope start(CallContext caller, Duration timeout, Timer timer) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        Objects.requireNonNull(timer, "timer must not be null");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        AttemptScope scope = new AttemptScope(caller, timeout);
        try {
            scope.timer = Objects.requireNonNull(timer.schedule(timeout, scope::expire),
                    "The Timer returned null instead of a registration");
        }
        catch (RuntimeException | Error ex) {
            scope.callerCancellation.close();
            throw ex;
        }
        // A timer that ran the task at once, or the scope closed meanwhile: nothing left to withdraw.
        if (scope.state != State.RUNNING) {
            scope.timer.close();
        }
        return scope;
    }

    /**
     * Returns the attempt's context, to hand to the inner client. Its views made with
     * {@link CallContext#withAuthorizer(Authorizer)} share its state, as any view does.
     *
     * @return the attempt's context
     */
    public CallContext context() {
        return this.context;
    }

    /**
     * Returns the caller's context, from which the attempt was started.
     *
     * @return the caller's context
     */
    public CallContext caller() {
        return this.caller;
    }

    /**
     * Tells whether the attempt's own timeout ended it: the timeout passed while the attempt ran,
     * before the caller cancelled, before {@link #cancel()} and before {@link #close()}. Stays true
     * once true, even if the caller's context becomes done afterwards, so read
     * {@link #failureFor(RuntimeException)} to learn what the attempt failed with.
     *
     * @return {@code true} when the attempt timed out
     */
    public boolean timedOut() {
        return this.state == State.TIMED_OUT;
    }

    /**
     * Ends the attempt from the loop's side, such as a stream found stalled: the attempt's context
     * becomes done and its cancellation actions run on this thread. The caller's context is not
     * touched. Has no effect once the attempt's context is done or the scope is closed.
     *
     * @throws RuntimeException what the first failing cancellation action threw, the failures of
     *     later ones attached as suppressed; the attempt's context is done all the same
     */
    public void cancel() {
        end(State.CANCELLED);
    }

    /**
     * Stops the attempt's timeout, such as when a stream is established and its
     * {@code first-token-timeout} no longer applies: from now on only the caller or {@link #cancel()}
     * ends the attempt. Has no effect once the timeout has passed, or when there is none.
     */
    public void cancelTimeout() {
        if (STATE.compareAndSet(this, State.RUNNING, State.UNTIMED)) {
            this.timer.close();
        }
    }

    /**
     * Returns what the attempt failed with, given what the inner client threw: an
     * {@link AttemptTimeoutException} when the attempt's own timeout ended it and the caller's
     * context is not done (the thrown failure attached to it as suppressed); otherwise
     * {@code thrown} itself, unchanged, so that the caller's cancellation or deadline is reported
     * as the inner client reported it and nothing changes for an attempt without a timeout.
     *
     * @param thrown what the inner client threw for this attempt
     * @return the failure to classify and report
     * @throws NullPointerException if {@code thrown} is {@code null}
     */
    public RuntimeException failureFor(RuntimeException thrown) {
        Objects.requireNonNull(thrown, "thrown must not be null");
        if (!timedOut() || this.caller.isDone()) {
            return thrown;
        }
        RuntimeException timeout = timeoutFailure();
        if (timeout != thrown) {
            timeout.addSuppressed(thrown);
        }
        return timeout;
    }

    /**
     * Ends the scope: withdraws the timer's task and the registration on the caller's context, so
     * that neither holds the attempt any longer. Runs no cancellation action: an inner client
     * withdraws its own when its exchange is over. Idempotent; never throws.
     */
    @Override
    public void close() {
        State now = this.state;
        while ((now == State.RUNNING || now == State.UNTIMED) && !STATE.compareAndSet(this, now, State.CLOSED)) {
            now = this.state;
        }
        this.timer.close();
        this.callerCancellation.close();
    }

    /** The attempt context's failure once it is done by its own doing; the caller's is asked first. */
    RuntimeException ownFailure() {
        State end = this.state;
        if (end == State.TIMED_OUT) {
            return timeoutFailure();
        }
        return new CancellationException((end == State.CALLER_CANCELLED) ? "The call was cancelled"
                : "The attempt was cancelled");
    }

    private RuntimeException timeoutFailure() {
        AttemptTimeoutException failure = new AttemptTimeoutException(Objects.requireNonNull(this.timeout));
        RuntimeException aborting = this.abortFailure;
        if (aborting != null) {
            failure.addSuppressed(aborting);
        }
        return failure;
    }

    /** The timer's task: a failing abort action has no caller to reach here, so its failure is kept. */
    private void expire() {
        try {
            end(State.TIMED_OUT);
        }
        catch (RuntimeException ex) {
            this.abortFailure = ex;
        }
    }

    private void end(State end) {
        State from;
        do {
            from = this.state;
            // Only a running attempt ends, and its timeout ends it only while armed.
            if ((from != State.RUNNING && from != State.UNTIMED) || (end == State.TIMED_OUT && from != State.RUNNING)) {
                return;
            }
        }
        while (!STATE.compareAndSet(this, from, end));
        if (end != State.TIMED_OUT) {
            this.timer.close();
        }
        this.cancellation.cancel();
    }

    @Override
    public String toString() {
        return "AttemptScope[" + String.valueOf(this.state).toLowerCase(Locale.ROOT)
                + ((this.timeout != null) ? ", timeout=" + this.timeout : "") + "]";
    }

    /**
     * Runs an action once a delay has passed, on a thread of its own: the seam through which an
     * {@link AttemptScope} times its attempt. One timer serves every attempt (no thread per attempt);
     * tests give one that runs in virtual time.
     */
    @FunctionalInterface
    public interface Timer {

        /**
         * Schedules an action.
         *
         * @param delay how long to wait, positive
         * @param action what to run once the delay has passed; quick, never blocking
         * @return the registration, whose {@code close()} withdraws the action if it has not run
         * @throws RejectedExecutionException if the timer no longer takes tasks, such as after its
         *     executor was shut down: the attempt is then not started
         */
        CallContext.Registration schedule(Duration delay, Runnable action);

        /**
         * Returns the timer's clock, in nanoseconds from an arbitrary origin, to measure how long has
         * passed between two readings (how long a stream stayed silent, say). Tests give a timer that
         * reads virtual time.
         *
         * @return the current reading; by default {@link System#nanoTime()}
         */
        default long nanoTime() {
            return System.nanoTime();
        }

        /**
         * Returns a timer that schedules on an executor, such as one single-threaded
         * {@link java.util.concurrent.ScheduledThreadPoolExecutor} shared by the application, with
         * {@code setRemoveOnCancelPolicy(true)} so that withdrawn tasks do not linger in its queue.
         *
         * @param executor the executor whose threads run the actions; never a thread that a
         *     transport needs for its own calls
         * @return the timer
         * @throws NullPointerException if {@code executor} is {@code null}
         */
        static Timer of(ScheduledExecutorService executor) {
            Objects.requireNonNull(executor, "executor must not be null");
            return (delay, action) -> {
                ScheduledFuture<?> task = executor.schedule(action, Durations.toWaitNanos(delay), TimeUnit.NANOSECONDS);
                return () -> task.cancel(false);
            };
        }
    }
}
