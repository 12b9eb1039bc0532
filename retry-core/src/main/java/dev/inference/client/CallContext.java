package dev.inference.client;

import dev.inference.failure.DeadlineExceededException;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of one inference call: its cancellation, its deadline and its credentials,
 * shared by every attempt of the call.
 *
 * <p>A deadline made by {@link #withTimeout(Duration)} is measured on the monotonic clock
 * ({@link System#nanoTime()}), as Go's are: a step of the wall clock (NTP, a virtual machine
 * resumed) neither shortens nor stretches the call. {@link #deadline()} reports it as the instant
 * of the wall clock it fell on when the context was made.
 *
 * <p>A context is <em>done</em> once it has been {@linkplain #cancel() cancelled} or its deadline
 * has passed, whichever happens first; it never becomes undone. Views made with
 * {@link #withAuthorizer(Authorizer)} share the cancellation and the deadline of the context they
 * were made from. All methods are thread-safe; {@link #cancel()} may be called from any thread,
 * wakes every thread {@linkplain #await(Duration) waiting} on the context at once and runs the
 * actions registered with {@link #onCancel(Runnable)}.
 *
 * <p>A retry loop gives each attempt a context of its own with {@link #startAttempt(Duration,
 * AttemptScope.Timer)}: done when the caller's is, or when the attempt's timeout passes, and never
 * cancelling the caller's; {@link AttemptScope} tells how such a context ended.
 */
public final class CallContext {

    private static final CallContext BACKGROUND = new CallContext(null, null, Authorizer.none());

    /** What the background context, which is never cancelled, hands out: there is nothing to withdraw. */
    private static final Registration NOT_REGISTERED = () -> {
    };

    private final @Nullable Cancellation cancellation;

    private final @Nullable Deadline deadline;

    private final Authorizer authorizer;

    /** The attempt this context belongs to, when it is an attempt's context: see {@link #startAttempt()}. */
    private final @Nullable AttemptScope attempt;

    /** Whether the caller has another model to ask: see {@link #withFallback()}. */
    private final boolean fallback;

    private CallContext(@Nullable Cancellation cancellation, @Nullable Deadline deadline, Authorizer authorizer) {
        this(cancellation, deadline, authorizer, null, false);
    }

    private CallContext(@Nullable Cancellation cancellation, @Nullable Deadline deadline, Authorizer authorizer,
            @Nullable AttemptScope attempt, boolean fallback) {
        this.cancellation = cancellation;
        this.deadline = deadline;
        this.authorizer = authorizer;
        this.attempt = attempt;
        this.fallback = fallback;
    }

    /**
     * Returns the context that is never done and carries no credentials.
     *
     * @return the background context
     */
    public static CallContext background() {
        return BACKGROUND;
    }

    /**
     * Returns a new context without a deadline that is done once {@link #cancel()} is called.
     *
     * @return a new cancellable context with no credentials
     */
    public static CallContext cancellable() {
        return new CallContext(new Cancellation(), null, Authorizer.none());
    }

    /**
     * Returns a new cancellable context whose deadline is {@code timeout} from now, measured on the
     * monotonic clock ({@link System#nanoTime()}), so that a step of the wall clock does not move it.
     *
     * @param timeout how long the call may take; zero or negative makes a context that is already
     *     done
     * @return a new cancellable context with a deadline and no credentials; its
     *     {@linkplain #deadline() deadline} is reported as {@code timeout} from now on the system
     *     UTC clock, {@link Instant#MAX} for a timeout that reaches beyond it
     * @throws NullPointerException if {@code timeout} is {@code null}
     */
    public static CallContext withTimeout(Duration timeout) {
        return withTimeout(timeout, Clock.systemUTC(), System::nanoTime);
    }

    /**
     * Returns a new cancellable context whose deadline is measured on a monotonic source of
     * nanoseconds and reported on a wall clock: the seam that lets a test step either.
     *
     * @param timeout how long the call may take
     * @param wallClock the clock the deadline is reported on
     * @param nanoTime the monotonic source it is measured on, such as {@code System::nanoTime}
     * @return a new cancellable context with a deadline and no credentials
     */
    static CallContext withTimeout(Duration timeout, Clock wallClock, LongSupplier nanoTime) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        long start = nanoTime.getAsLong();
        return new CallContext(new Cancellation(),
                new Deadline(deadlineAfter(wallClock.instant(), timeout), timeout,
                        () -> Duration.ofNanos(nanoTime.getAsLong() - start)),
                Authorizer.none());
    }

    /**
     * Returns a new cancellable context whose deadline is {@code timeout} from now on the given
     * clock, which the context then also measures the deadline on: the time that passes is the
     * time that passes on this clock. Meant for tests and simulations, in virtual time; a clock
     * that steps moves the deadline, which {@link #withTimeout(Duration)} does not.
     *
     * @param timeout how long the call may take; zero or negative makes a context that is already
     *     done
     * @param clock the clock that measures the deadline, such as a fixed or test clock
     * @return a new cancellable context with a deadline and no credentials; a timeout that reaches
     *     beyond {@link Instant#MAX} (or {@link Instant#MIN}) gives that instant as the deadline
     * @throws NullPointerException if an argument is {@code null}
     */
    public static CallContext withTimeout(Duration timeout, Clock clock) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
        Instant start = clock.instant();
        return new CallContext(new Cancellation(),
                new Deadline(deadlineAfter(start, timeout), timeout, () -> Duration.between(start, clock.instant())),
                Authorizer.none());
    }

    /**
     * Cancels the call: the context and all its views become done, and every thread
     * {@linkplain #await(Duration) waiting} on them wakes. Idempotent. Has no effect once the
     * deadline has passed, since the context is then already done with that failure. The first
     * cancellation runs every action registered with {@link #onCancel(Runnable)}, all of them even
     * when one throws. On an {@linkplain #startAttempt() attempt's} context this cancels that attempt
     * only, as {@link AttemptScope#cancel()} does: the caller's context is untouched.
     *
     * @throws RuntimeException what the first failing registered action threw, the failures of later
     *     ones attached as suppressed; the context is cancelled all the same
     * @throws IllegalStateException if this is the {@linkplain #background() background} context
     *     (or a view of it), which cannot be cancelled; use {@link #cancellable()}
     */
    public void cancel() {
        if (this.cancellation == null) {
            throw new IllegalStateException(
                    "The background context cannot be cancelled; create the call's context with CallContext.cancellable()");
        }
        if (this.attempt != null) {
            this.attempt.cancel();
        }
        else if (!deadlinePassed()) {
            this.cancellation.cancel();
        }
    }

    /**
     * Tells whether the call is over from the caller's side: cancelled, or past its deadline.
     *
     * @return {@code true} once the context is done
     */
    public boolean isDone() {
        return isCancelled() || deadlinePassed() || (this.attempt != null && this.attempt.caller().isDone());
    }

    /**
     * Returns the failure that a call made with this context must end with, if the context is done.
     * Each call returns a new exception, so that its stack trace shows the caller.
     *
     * @return a {@link CancellationException} when the context was cancelled, a
     *     {@link DeadlineExceededException} when its deadline passed, or empty when it is not done
     */
    public Optional<RuntimeException> failure() {
        if (this.attempt != null) {
            Optional<RuntimeException> callers = this.attempt.caller().failure();
            return (callers.isPresent() || !isCancelled()) ? callers : Optional.of(this.attempt.ownFailure());
        }
        if (isCancelled()) {
            return Optional.of(new CancellationException("The call was cancelled"));
        }
        Deadline passed = this.deadline;
        if (passed != null && passed.remaining().isZero()) {
            return Optional.of(new DeadlineExceededException("The call's deadline " + passed.instant + " has passed"));
        }
        return Optional.empty();
    }

    /**
     * Returns the call's deadline.
     *
     * @return the deadline, or empty when the call has none
     */
    public Optional<Instant> deadline() {
        return (this.deadline != null) ? Optional.of(this.deadline.instant) : Optional.empty();
    }

    /**
     * Returns how long remains until the deadline, measured as the deadline is: on the monotonic
     * clock, or on the clock given to {@link #withTimeout(Duration, Clock)}.
     *
     * @return the time left, {@link Duration#ZERO} once the deadline has passed, or empty when the
     *     call has no deadline
     */
    public Optional<Duration> timeRemaining() {
        return (this.deadline != null) ? Optional.of(this.deadline.remaining()) : Optional.empty();
    }

    /**
     * Blocks the calling thread until the context is done or {@code timeout} has elapsed, whichever
     * comes first. Holds no lock and does not pin a virtual thread; wakes as soon as the context is
     * cancelled from another thread.
     *
     * @param timeout the longest time to wait; zero or negative does not wait
     * @return {@link #isDone()} at the time of return
     * @throws InterruptedException if the calling thread is interrupted while waiting (its interrupt
     *     status is then cleared, as by {@link Thread#sleep(long)})
     * @throws NullPointerException if {@code timeout} is {@code null}
     */
    public boolean await(Duration timeout) throws InterruptedException {
        long nanos = Durations.toWaitNanos(Objects.requireNonNull(timeout, "timeout must not be null"));
        if (this.deadline != null) {
            nanos = Math.min(nanos, Durations.toWaitNanos(timeRemaining().orElseThrow()));
        }
        if (this.cancellation != null) {
            this.cancellation.await(nanos);
        }
        else if (nanos > 0) {
            // Not TimeUnit.sleep: before Java 21, Thread.sleep(millis, nanos) rounds any
            // nanoseconds up to a whole millisecond.
            long start = System.nanoTime();
            for (long left = nanos; left > 0; left = nanos - (System.nanoTime() - start)) {
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
        else if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return isDone();
    }

    /**
     * Registers an action to run when the context is cancelled, so that a transport can abort an
     * in-flight request. The action runs at most once: on the thread that calls {@link #cancel()},
     * or at once on this thread if the context is already cancelled. It does not run when the
     * deadline passes: a transport enforces the {@linkplain #deadline() deadline} itself, as its
     * request timeout. On an attempt's context it also runs when the attempt's timeout passes (on
     * the timer's thread) and when the caller's context is cancelled while the attempt runs. Close the registration when the attempt is over, so that the context stops
     * holding the action.
     *
     * @param action what to do on cancellation; should be quick and must not block
     * @return the registration, whose {@code close()} withdraws the action if it has not run
     * @throws NullPointerException if {@code action} is {@code null}
     * @throws RuntimeException what the action threw, when the context was already cancelled and the
     *     action ran at once
     */
    public Registration onCancel(Runnable action) {
        Objects.requireNonNull(action, "action must not be null");
        return (this.cancellation != null) ? this.cancellation.onCancel(action) : NOT_REGISTERED;
    }

    /**
     * Returns the authorizer that supplies this call's credentials to each attempt.
     *
     * @return the authorizer, {@link Authorizer#none()} unless one was set
     */
    public Authorizer authorizer() {
        return this.authorizer;
    }

    /**
     * Returns a view of this context with other credentials. The view shares this context's
     * cancellation and deadline: cancelling either cancels both.
     *
     * @param authorizer the authorizer for every attempt of calls made with the view
     * @return the view
     * @throws NullPointerException if {@code authorizer} is {@code null}
     */
    public CallContext withAuthorizer(Authorizer authorizer) {
        return new CallContext(this.cancellation, this.deadline,
                Objects.requireNonNull(authorizer, "authorizer must not be null"), this.attempt, this.fallback);
    }

    /**
     * Starts one attempt of a call made with this context, bounded by a timeout of its own: the
     * attempt's {@linkplain AttemptScope#context() context} is done when this one is, and also when
     * {@code timeout} has passed, at which point the timer runs the actions the inner client
     * registered with {@link #onCancel(Runnable)} on it, so that the in-flight request is aborted.
     * This context is never cancelled by the attempt. See {@link AttemptScope} for the rest of the
     * contract; close the scope when the attempt is over.
     *
     * @param timeout the attempt's own bound, positive
     * @param timer the timer that ends the attempt when the timeout passes
     * @return the attempt's scope
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     * @throws java.util.concurrent.RejectedExecutionException if the timer refuses the task
     */
    public AttemptScope startAttempt(Duration timeout, AttemptScope.Timer timer) {
        return AttemptScope.start(this, timeout, timer);
    }

    /**
     * Starts one attempt of a call made with this context, with no timeout of its own: the
     * attempt's {@linkplain AttemptScope#context() context} is done when this one is, or when its
     * owner {@linkplain AttemptScope#cancel() cancels} it (a stream found stalled, say), which never
     * cancels this context. Close the scope when the attempt is over.
     *
     * @return the attempt's scope
     */
    public AttemptScope startAttempt() {
        return AttemptScope.start(this);
    }

    /** Returns the context of an attempt started from this one: its cancellation, this deadline and authorizer. */
    CallContext attemptContext(Cancellation attemptCancellation, AttemptScope scope) {
        return new CallContext(attemptCancellation, this.deadline, this.authorizer, scope, this.fallback);
    }

    /** Returns how many cancellation actions this context holds, for tests that check none is left behind. */
    int registeredActions() {
        return (this.cancellation != null) ? this.cancellation.registeredActions() : 0;
    }

    /**
     * Returns a view of this context for a caller that has another model to ask, such as a fallback
     * chain calling one of its members: a retry loop that comes to wait for a provider's
     * {@code Retry-After} or a cool-down (not for its own backoff schedule) gives up at that point,
     * with no further request, and throws {@code dev.inference.retry.CoolingDownException}. The view
     * shares this context's cancellation, deadline and authorizer; views made from it keep the mark.
     *
     * @return the view
     */
    public CallContext withFallback() {
        return this.fallback ? this
                : new CallContext(this.cancellation, this.deadline, this.authorizer, this.attempt, true);
    }

    /**
     * Tells whether the caller has another model to ask (see {@link #withFallback()}).
     *
     * @return {@code true} for a view made by {@link #withFallback()}
     */
    public boolean hasFallback() {
        return this.fallback;
    }

    private boolean isCancelled() {
        return this.cancellation != null && this.cancellation.isCancelled();
    }

    private boolean deadlinePassed() {
        return this.deadline != null && this.deadline.remaining().isZero();
    }

    private static Instant deadlineAfter(Instant now, Duration timeout) {
        try {
            return now.plus(timeout);
        }
        catch (DateTimeException | ArithmeticException beyondInstantRange) {
            return timeout.isNegative() ? Instant.MIN : Instant.MAX;
        }
    }

    /**
     * A deadline: the instant it is reported as, and the timeout it is measured as, against the
     * time elapsed since the context was made.
     */
    private static final class Deadline {

        /** The longest duration there is, which the time remaining saturates to. */
        private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

        final Instant instant;

        private final Duration timeout;

        private final Supplier<Duration> elapsed;

        /** Set once the deadline is seen to have passed: a context never becomes undone. */
        private volatile boolean passed;

        Deadline(Instant instant, Duration timeout, Supplier<Duration> elapsed) {
            this.instant = instant;
            this.timeout = timeout;
            this.elapsed = elapsed;
        }

        Duration remaining() {
            if (this.passed) {
                return Duration.ZERO;
            }
            Duration elapsed = this.elapsed.get();
            if (elapsed.compareTo(this.timeout) >= 0 || this.timeout.isNegative() || this.timeout.isZero()) {
                this.passed = true;
                return Duration.ZERO;
            }
            try {
                return this.timeout.minus(elapsed);
            }
            catch (ArithmeticException beyondDuration) {
                // An enormous timeout on a clock set back since the context was made.
                return FOREVER;
            }
        }
    }

    /**
     * An action registered with {@link #onCancel(Runnable)}.
     */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {

        /**
         * Withdraws the action if it has not run yet. Idempotent; never throws.
         */
        @Override
        void close();
    }

    @Override
    public String toString() {
        return "CallContext[" + (isCancelled() ? "cancelled" : (this.cancellation != null) ? "cancellable" : "background")
                + ((this.deadline != null) ? ", deadline=" + this.deadline.instant : "")
                + ((this.attempt != null) ? ", attempt" : "") + "]";
    }
}
