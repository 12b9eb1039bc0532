package dev.inference.retry;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.WaitScheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * The retry decisions of one call, made by {@link Retrier#start} at attempt 1; the one place where
 * the order of those decisions is written down. The caller makes the attempts and waits the delays
 * its own way, and tells the execution what happened:
 * <pre>{@code
 * RetryExecution execution = retrier.start(Operation.INVOKE, context);
 * for (;;) {
 *     Duration cooldown = execution.cooldownBeforeAttempt();
 *     while (!cooldown.isZero()) {
 *         sleep(cooldown);               // a provider asked every caller of its account to hold off
 *         execution.endCooldownWait();   // throws if the call ended during the wait
 *         cooldown = execution.cooldownBeforeAttempt();
 *     }
 *     try {
 *         Response response = attempt();
 *         execution.succeeded();
 *         return response;
 *     }
 *     catch (RuntimeException ex) {
 *         RetryExecution.Decision decision = execution.failed(ex);
 *         if (!decision.isRetry()) {
 *             throw decision.failure();
 *         }
 *         sleep(decision.delay());       // or schedule the next attempt on a timer
 *         execution.beginNextAttempt();  // throws if the call ended during the wait
 *     }
 * }
 * }</pre>
 *
 * <p>The order of a call's decisions, which every caller of a retrier follows (blocking or not):
 * <ol>
 * <li>a call whose context is already done fails with the context's failure, with no attempt;</li>
 * <li>before every attempt, the first included, a {@linkplain CooldownStore cool-down} of the
 * provider account is waited out (and, with a {@linkplain Retrier.Builder#cooldownReleaseSpread
 * release spread}, a random share of it after its end); when the deadline would pass during the
 * cool-down, the call fails at once with a {@link DeadlineExceededException};</li>
 * <li>after a failed attempt: a permanent failure ends the call as the attempt threw it, and so does
 * any failure when the retrier's retries are {@linkplain Retrier.Builder#enabled switched off}; a
 * retryable failure of the last attempt allowed ends it with an {@link ExhaustedException}; a
 * {@linkplain RetryBudget retry budget} below half ends it with a
 * {@link RetryBudgetExhaustedException} (the failure took its token first); a
 * {@linkplain ShutdownSignal shutdown} under way with a {@link ShutdownException}; a context that is
 * done with the context's failure; a deadline that would pass during the wait (until the later of
 * the backoff's end and the cool-down's) at once with a {@link DeadlineExceededException}; a wait
 * for the provider's {@code Retry-After} or a cool-down, when the context
 * {@linkplain CallContext#hasFallback() has a fallback}, at once with a {@link CoolingDownException};</li>
 * <li>otherwise the call retries after the {@link Backoff} delay, which honours the provider's
 * {@code Retry-After};</li>
 * <li>a wait, backoff or cool-down, that a shutdown, the context or an interrupt cuts short ends the
 * call with a {@link ShutdownException}, the context's failure or a {@link CancellationException},
 * with no further attempt.</li>
 * </ol>
 * An exhaustion, by the policy or the budget, has the last failure as its cause and the earlier ones
 * as suppressed; every other end but a permanent failure carries, as suppressed, the failure that
 * caused the wait. A reader carried
 * by a {@link HalfOpenStreamException} is closed at once; its cause, never the wrapper, is classified,
 * reported and thrown, and a failure to close it is suppressed in whatever the call finally throws.
 *
 * <p>Each step ({@link #cooldownBeforeAttempt}, {@link #failed}, {@link #succeeded}) reads the
 * retrier's settings in force once, as it begins, and decides under them alone: after a
 * {@linkplain Retrier#refresh refresh}, a call in progress takes its next decision under the new
 * settings, its attempts already made counted against the new {@code maxAttempts}.
 *
 * <p>The listeners hear every attempt, every wait before it starts (with the exact delay) and every
 * exhaustion, in that order, from the calling thread. Not thread-safe: one call, one caller at a time,
 * except {@link #abandoned(Throwable)}, which any thread may call at any time.
 */
public final class RetryExecution {

    private static final VarHandle OBSERVATION = observationHandle();

    /** The retrier of the call, whose settings in force each step reads once. */
    private final Retrier handle;

    /**
     * The settings of the step in progress: the handle's, read once at its start, so that a step
     * decides under one retrier's settings even while a refresh replaces them (see {@link Retrier#refresh}).
     */
    private Retrier retrier;

    private final Operation operation;

    private final CallContext context;

    private int attempt = 1;

    /** Where the call stands, so that the methods are called in the order they must be. */
    private State state = State.ATTEMPTING;

    /** The failure of the latest failed attempt: the cause of the wait in progress, if any. */
    private @Nullable RuntimeException latestFailure;

    /** The backoff wait in progress, for messages. */
    private @Nullable Duration backoff;

    /** Whether the listeners heard that a cool-down delays the attempt in progress. */
    private boolean delayReported;

    /**
     * The observation of the attempt in flight, when the retrier has an observer. Taken with an
     * atomic swap by whoever ends it, so that an abandonment racing the attempt's end ends it once.
     */
    private volatile AttemptObserver.@Nullable ObservedAttempt observation;

    /** Why the call was abandoned, once it was: an observation started afterwards is ended at once. */
    private volatile @Nullable Throwable abandonment;

    /** The failures of the attempts before the latest, for an {@link ExhaustedException}. */
    private @Nullable List<RuntimeException> recovered;

    /** What closing half-open readers threw, for whatever the call finally throws. */
    private @Nullable List<Throwable> closeFailures;

    RetryExecution(Retrier retrier, Operation operation, CallContext context) {
        this.handle = retrier;
        this.retrier = retrier.current();
        this.operation = operation;
        this.context = context;
    }

    /**
     * Returns the number of the attempt in progress, or of the one that just failed.
     *
     * @return the 1-based attempt number
     */
    public int attempt() {
        return this.attempt;
    }

    /**
     * Records that the attempt in progress succeeded, and tells the listeners.
     *
     * @return the number of attempts the call made, to stamp its result with
     * @throws IllegalStateException if no attempt is in progress
     * @throws Error whatever a listener threw as an {@link Error}; the caller then releases the
     *     result, which will never reach its own caller
     */
    public int succeeded() {
        requireAttempting();
        this.state = State.DONE;
        refreshSettings();
        RetryBudget budget = this.retrier.budgetOrNull();
        if (budget != null) {
            budget.succeeded();
        }
        AttemptEvent event = this.retrier.succeeded(this.operation, this.attempt);
        RetryListener listener = this.retrier.listener();
        if (listener != null) {
            listener.attemptFinished(event);
        }
        endObservation(event, null);
        return this.attempt;
    }

    /**
     * Records that the attempt in progress failed, tells the listeners, and decides the call's fate
     * in the order the class documentation gives.
     *
     * @param thrown what the attempt threw; a {@link HalfOpenStreamException}'s reader is closed here
     * @return the decision: give up with {@link Decision#failure()}, or retry after
     *     {@link Decision#delay()} and then call {@link #beginNextAttempt()}
     * @throws NullPointerException if {@code thrown} is {@code null}
     * @throws IllegalStateException if no attempt is in progress
     */
    public Decision failed(RuntimeException thrown) {
        Objects.requireNonNull(thrown, "thrown must not be null");
        requireAttempting();
        this.state = State.DONE;
        refreshSettings();
        RuntimeException failure = thrown;
        if (thrown instanceof HalfOpenStreamException halfOpen) {
            closeQuietly(halfOpen.reader());
            failure = halfOpen.getCause();
        }
        Classification classification = this.retrier.classifier().classify(failure);
        boolean retryable = classification.isRetryable();
        if (retryable) {
            // Every caller of this provider account hears the Retry-After, whatever this call does next.
            classification.retryAfter().ifPresent((retryAfter) -> this.retrier.coolDown(retryAfter,
                    CooldownReason.RETRY_AFTER));
        }
        // And what its rate-limit headers said, retryable or not.
        if (this.retrier.readsRateLimits()) {
            classification.rateLimitedFor().ifPresent(this.retrier::rateLimited);
        }
        RetryListener listener = this.retrier.listener();
        AttemptEvent event = (listener != null || this.observation != null)
                ? new AttemptEvent(this.retrier.name(), this.operation, this.attempt, failure, retryable) : null;
        if (listener != null && event != null) {
            listener.attemptFinished(event);
        }
        Decision decision = decide(failure, classification, event, listener);
        endObservation(event, decision.isRetry() ? decision.delay() : null);
        return decision;
    }

    private Decision decide(RuntimeException failure, Classification classification, @Nullable AttemptEvent event,
            @Nullable RetryListener listener) {
        boolean retryable = classification.isRetryable();
        // Permanent: the caller gets the failure exactly as the attempt threw it.
        if (!retryable) {
            return Decision.giveUp(suppressing(failure, null));
        }
        // The client's retries are switched off: one attempt, its failure as it is.
        if (!this.retrier.retries()) {
            return Decision.giveUp(suppressing(failure, null));
        }
        RetryBudget budget = this.retrier.budgetOrNull();
        boolean budgetAllows = (budget == null) || budget.failedRetryably();
        // Transient, but no attempt left: give up with the final failure as the cause.
        if (this.attempt >= this.retrier.policy().maxAttempts()) {
            return exhausted(new ExhaustedException(this.attempt, failure), event);
        }
        // The provider has been failing for this client lately: another attempt would only add load.
        if (!budgetAllows) {
            return exhausted(new RetryBudgetExhaustedException(this.attempt, failure), event);
        }
        // The application is going away: answer now rather than retry into the shutdown.
        if (isShuttingDown()) {
            return Decision.giveUp(suppressing(new ShutdownException("The application is shutting down: attempt "
                    + this.attempt + " failed and is not retried"), failure));
        }
        // The caller gave up while the attempt ran: no wait to schedule, no attempt to make.
        Optional<RuntimeException> done = this.context.failure();
        if (done.isPresent()) {
            return Decision.giveUp(suppressing(done.get(), failure));
        }
        Duration delay = this.retrier.schedule().delay(this.attempt, classification);
        // Waiting past the deadline could only end in DeadlineExceededException: end now. The wait
        // lasts until the later of the backoff's end and the cool-down's.
        Duration cooldown = this.retrier.cooldownRemaining();
        Duration wait = (cooldown.compareTo(delay) > 0) ? cooldown : delay;
        // A caller with another model to ask does not wait for a provider's Retry-After or cool-down.
        if (this.context.hasFallback() && (cooldown.compareTo(delay) > 0
                || classification.retryAfter().filter((retryAfter) -> retryAfter.compareTo(delay) >= 0).isPresent())) {
            return Decision.giveUp(suppressing(new CoolingDownException(this.attempt, wait, failure), null));
        }
        Optional<Duration> remaining = this.context.timeRemaining();
        if (remaining.isPresent() && remaining.get().compareTo(wait) <= 0) {
            return Decision.giveUp(suppressing(new DeadlineExceededException("The call's deadline would pass during the "
                    + wait + " wait before attempt " + (this.attempt + 1)), failure));
        }
        this.state = State.WAITING;
        this.latestFailure = failure;
        this.backoff = delay;
        if (listener != null && event != null) {
            listener.retryScheduled(event, delay);
        }
        return Decision.retryAfter(delay);
    }

    private void endObservation(@Nullable AttemptEvent event, @Nullable Duration retryDelay) {
        if (event != null && this.observation != null) {
            AttemptObserver.ObservedAttempt ending = (AttemptObserver.ObservedAttempt) OBSERVATION.getAndSet(this, null);
            if (ending != null) {
                ending.attemptEnded(event, retryDelay);
            }
        }
    }

    /**
     * Records that the call ends without the attempt in flight telling its outcome: its caller
     * cancelled it (a subscription cancelled during the attempt), or the attempt ended with an
     * {@link Error} or a checked exception, which are not failed attempts to decide about. Ends the
     * observation of that attempt, if the retrier's {@link AttemptObserver} started one, with an event
     * that carries {@code cause} and is not retryable, so that no observation stays open; the
     * listeners hear nothing of it, as they hear nothing of an attempt that never ended.
     *
     * <p>Unlike the other methods, this one may be called from any thread, at any time, even while
     * another thread is telling the execution of the attempt's end: the observation is ended once,
     * by whichever comes first. After it, an attempt's observation that this execution starts is ended
     * at once. Calling it again, or after the call ended, does nothing more.
     *
     * @param cause why the call was abandoned, such as a {@link CancellationException} or the
     *     {@link Error} the attempt threw
     * @throws NullPointerException if {@code cause} is {@code null}
     * @throws Error whatever the observation threw as an {@link Error} when ended
     */
    public void abandoned(Throwable cause) {
        Objects.requireNonNull(cause, "cause must not be null");
        if (this.abandonment == null) {
            this.abandonment = cause;
        }
        endAbandonedObservation();
    }

    /** Ends the observation in flight, if any, as abandoned. */
    private void endAbandonedObservation() {
        Throwable cause = this.abandonment;
        AttemptObserver.ObservedAttempt ending = (AttemptObserver.ObservedAttempt) OBSERVATION.getAndSet(this, null);
        if (ending != null && cause != null) {
            ending.attemptEnded(new AttemptEvent(this.retrier.name(), this.operation, this.attempt, cause, false), null);
        }
    }

    private Decision exhausted(ExhaustedException exhausted, @Nullable AttemptEvent event) {
        suppressAll(exhausted, this.recovered);
        suppressAll(exhausted, this.closeFailures);
        RetryListener listener = this.retrier.listener();
        if (listener != null && event != null) {
            listener.exhausted(event, exhausted);
        }
        return Decision.giveUp(exhausted);
    }

    /**
     * Begins the next attempt once the backoff wait is over. Call {@link #cooldownBeforeAttempt()}
     * next, before making it.
     *
     * @throws ShutdownException if the application began to shut down during the wait
     * @throws CancellationException if the context was cancelled during the wait
     * @throws DeadlineExceededException if the context's deadline passed during the wait
     * @throws IllegalStateException if the last decision was not to retry
     */
    public void beginNextAttempt() {
        RuntimeException failure = requireWaiting();
        this.state = State.DONE;
        endIfGivenUp("the wait before attempt " + (this.attempt + 1));
        // Grown as needed: sized by maxAttempts, a policy allowing millions of attempts would
        // allocate an array that large on the first retry.
        this.recovered = (this.recovered != null) ? this.recovered : new ArrayList<>();
        this.recovered.add(failure);
        this.attempt++;
        this.delayReported = false;
        this.state = State.ATTEMPTING;
    }

    /**
     * Returns how long the attempt about to be made must wait for a cool-down of its provider
     * account (see {@link CooldownStore}), and tells the listeners the first time it is positive.
     * Call it before every attempt, the first included, until it returns zero, waiting what it
     * returns and calling {@link #endCooldownWait()} after each wait. Zero means "make the attempt
     * now": the retrier's {@link AttemptObserver}, if any, starts observing it then.
     *
     * @return the wait: the cool-down's remainder, plus a share of the retrier's
     *     {@linkplain Retrier#cooldownReleaseSpread() release spread} drawn at random when it has one and the
     *     deadline allows it; {@link Duration#ZERO} when no cool-down is in force
     * @throws DeadlineExceededException at once if the context's deadline would pass during the wait
     * @throws IllegalStateException if no attempt is about to be made
     */
    public Duration cooldownBeforeAttempt() {
        requireAttempting();
        refreshSettings();
        Duration cooldown = this.retrier.cooldownRemaining();
        if (cooldown.isZero()) {
            AttemptObserver observer = this.retrier.observer();
            if (observer != null && this.observation == null) {
                this.observation = observer.attemptStarted(this.retrier.name(), this.operation, this.attempt);
                // Abandoned meanwhile, from another thread: this attempt will never tell its end.
                if (this.abandonment != null) {
                    endAbandonedObservation();
                }
            }
            return cooldown;
        }
        if (this.context.hasFallback()) {
            this.state = State.DONE;
            throw suppressing(new CoolingDownException(this.attempt - 1, cooldown, this.latestFailure), null);
        }
        Optional<Duration> remaining = this.context.timeRemaining();
        if (remaining.isPresent() && remaining.get().compareTo(cooldown) <= 0) {
            this.state = State.DONE;
            throw suppressing(new DeadlineExceededException("The call's deadline would pass during the " + cooldown
                    + " cool-down wait before attempt " + this.attempt), this.latestFailure);
        }
        // The calls a cool-down held are released over its spread, so that they do not burst at its end.
        Duration wait = this.retrier.cooldownWait(cooldown, remaining);
        RetryListener listener = this.retrier.listener();
        if (listener != null && !this.delayReported) {
            listener.attemptDelayed(new CooldownEvent(this.retrier.name(), this.operation, this.attempt,
                    this.retrier.cooldownKey(), wait));
        }
        this.delayReported = true;
        return wait;
    }

    /**
     * Ends a wait for a cool-down: checks that the call may still make its attempt.
     *
     * @throws ShutdownException if the application began to shut down during the wait
     * @throws CancellationException if the context was cancelled during the wait
     * @throws DeadlineExceededException if the context's deadline passed during the wait
     * @throws IllegalStateException if no attempt is about to be made
     */
    public void endCooldownWait() {
        requireAttempting();
        endIfGivenUp("the cool-down wait before attempt " + this.attempt);
    }

    /**
     * Ends the call because the waiting thread was interrupted, during a backoff or a cool-down wait.
     * The caller restores the thread's interrupt status.
     *
     * @param interrupted what the wait threw
     * @return the exception to throw: a {@link CancellationException} caused by {@code interrupted},
     *     with the latest attempt's failure, if any, attached as suppressed
     * @throws NullPointerException if {@code interrupted} is {@code null}
     * @throws IllegalStateException if the call had already ended
     */
    public CancellationException interrupted(InterruptedException interrupted) {
        Objects.requireNonNull(interrupted, "interrupted must not be null");
        CancellationException cancelled = new CancellationException("Interrupted during " + endWait());
        cancelled.initCause(interrupted);
        return suppressing(cancelled, this.latestFailure);
    }

    /**
     * Ends the call because the {@link WaitScheduler} of its wait stopped before the wait's end.
     *
     * @return the exception to end the call with, the latest attempt's failure, if any, suppressed
     * @throws IllegalStateException if the call had already ended
     */
    ShutdownException waitAbandoned() {
        return suppressing(new ShutdownException("The application is shutting down: the scheduler of " + endWait()
                + " stopped"), this.latestFailure);
    }

    /** Ends the call during a wait; returns the wait, for a message. */
    private String endWait() {
        if (this.state == State.DONE) {
            throw new IllegalStateException("This call has ended: it was not waiting");
        }
        String wait = (this.state == State.WAITING) ? "the " + this.backoff + " wait before attempt " + (this.attempt + 1)
                : "the cool-down wait before attempt " + this.attempt;
        this.state = State.DONE;
        return wait;
    }

    /** Throws what ends the call when the application or the caller gave up during a wait. */
    private void endIfGivenUp(String wait) {
        if (isShuttingDown()) {
            this.state = State.DONE;
            throw suppressing(new ShutdownException("The application is shutting down: " + wait + " was ended"),
                    this.latestFailure);
        }
        // The caller may have given up during the wait.
        Optional<RuntimeException> done = this.context.failure();
        if (done.isPresent()) {
            this.state = State.DONE;
            throw suppressing(done.get(), this.latestFailure);
        }
    }

    private boolean isShuttingDown() {
        return this.retrier.shutdownSignal().map(ShutdownSignal::isShutDown).orElse(false);
    }

    /** Reads the settings in force once per step, not per use: a runtime refresh may replace them at any time. */
    private void refreshSettings() {
        this.retrier = this.handle.current();
    }

    private void requireAttempting() {
        if (this.state != State.ATTEMPTING) {
            throw new IllegalStateException("No attempt of this call is in progress: after a retry decision, call "
                    + "beginNextAttempt() before making the next attempt");
        }
    }

    private RuntimeException requireWaiting() {
        RuntimeException failure = this.latestFailure;
        if (this.state != State.WAITING || failure == null) {
            throw new IllegalStateException("This call is not waiting to retry: the last decision was not a retry");
        }
        return failure;
    }

    private static VarHandle observationHandle() {
        try {
            return MethodHandles.lookup()
                .findVarHandle(RetryExecution.class, "observation", AttemptObserver.ObservedAttempt.class);
        }
        catch (ReflectiveOperationException impossible) {
            // A field of this very class, looked up by this class.
            throw new IllegalStateException(impossible);
        }
    }

    private void closeQuietly(StreamReader reader) {
        try {
            reader.close();
        }
        catch (RuntimeException ex) {
            this.closeFailures = (this.closeFailures != null) ? this.closeFailures : new ArrayList<>(1);
            this.closeFailures.add(ex);
        }
    }

    private <X extends Throwable> X suppressing(X thrown, @Nullable Throwable cause) {
        if (cause != null && cause != thrown) {
            thrown.addSuppressed(cause);
        }
        suppressAll(thrown, this.closeFailures);
        return thrown;
    }

    private static void suppressAll(Throwable thrown, @Nullable List<? extends Throwable> suppressed) {
        if (suppressed != null) {
            for (Throwable each : suppressed) {
                if (each != thrown) {
                    thrown.addSuppressed(each);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "RetryExecution[client=" + this.retrier.name() + ", operation=" + this.operation + ", attempt="
                + this.attempt + "]";
    }

    /** Where a call stands between the caller's steps. */
    private enum State {

        /** An attempt is about to be made or in flight. */
        ATTEMPTING,

        /** A retry was decided; the backoff wait is under way. */
        WAITING,

        /** The call ended: it succeeded or gave up. */
        DONE
    }

    /**
     * What to do after a failed attempt: give up with an exception, or retry after a delay.
     * Immutable.
     */
    public static final class Decision {

        private final @Nullable Duration delay;

        private final @Nullable RuntimeException failure;

        private Decision(@Nullable Duration delay, @Nullable RuntimeException failure) {
            this.delay = delay;
            this.failure = failure;
        }

        static Decision retryAfter(Duration delay) {
            return new Decision(delay, null);
        }

        static Decision giveUp(RuntimeException failure) {
            return new Decision(null, failure);
        }

        /**
         * Tells whether the call makes another attempt.
         *
         * @return {@code true} to wait {@link #delay()} and retry, {@code false} to throw
         *     {@link #failure()}
         */
        public boolean isRetry() {
            return this.delay != null;
        }

        /**
         * Returns the wait before the next attempt.
         *
         * @return the delay, not negative
         * @throws IllegalStateException if the decision is to give up
         */
        public Duration delay() {
            if (this.delay == null) {
                throw new IllegalStateException("The decision is to give up, not to retry");
            }
            return this.delay;
        }

        /**
         * Returns the exception that ends the call.
         *
         * @return the exception to throw or signal, unwrapped and with its suppressed failures attached
         * @throws IllegalStateException if the decision is to retry
         */
        public RuntimeException failure() {
            if (this.failure == null) {
                throw new IllegalStateException("The decision is to retry, not to give up");
            }
            return this.failure;
        }

        @Override
        public String toString() {
            return (this.delay != null) ? "Decision[retry after " + this.delay + "]"
                    : "Decision[give up with " + this.failure + "]";
        }
    }
}
