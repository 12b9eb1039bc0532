package dev.inference.retry;

import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The non-blocking retry loop: makes the attempts of a call through the caller's {@link Attempts}, waits
 * between them on a {@link WaitScheduler} with no thread blocked, in the order {@link RetryExecution}
 * gives, and completes a {@link CompletableFuture} with the call's outcome. {@link BlockingRetry} is the
 * same loop for a caller that blocks.
 *
 * <p>An attempt ends when its {@link Attempt} is told the outcome, from any thread; the next step runs
 * on that thread, on the scheduler's when a wait ends, or on the thread that cancelled the context or
 * fired the shutdown signal. The steps of a call never overlap, so the
 * listeners hear its events one at a time, in order. An {@link Error} thrown by a step ends the call
 * with it and is rethrown to the thread that ran the step. An attempt's {@link Timeouts timeout} runs on
 * the scheduler once its owner registers how to abort it ({@link Attempt#onTimeout}); when it passes
 * first, the attempt fails with an {@link AttemptTimeoutException}.
 *
 * <p>Trap: cancelling the returned future ends a wait in progress with no further attempt and ends the
 * observation of the attempt in flight, but does not reach that attempt: its caller stops it (through
 * the context, say); whatever it tells afterwards is still decided, and a result is then
 * {@linkplain Attempts#release released}. Immutable and thread-safe.
 */
public final class AsyncRetry {

    private final Retrier retrier;

    private final WaitScheduler scheduler;

    private AsyncRetry(Retrier retrier, WaitScheduler scheduler) {
        this.retrier = retrier;
        this.scheduler = scheduler;
    }

    /**
     * Creates the loop of a retrier, whose waits end on a scheduler.
     *
     * @param retrier the decisions, listeners and shutdown signal; its sleeper plays no part
     * @param scheduler times the waits, backoff and cool-down alike
     * @return the loop
     * @throws NullPointerException if an argument is {@code null}
     */
    public static AsyncRetry of(Retrier retrier, WaitScheduler scheduler) {
        return new AsyncRetry(Objects.requireNonNull(retrier, "retrier must not be null"),
                Objects.requireNonNull(scheduler, "scheduler must not be null"));
    }

    /**
     * Returns the retrier whose decisions the loop follows.
     *
     * @return the retrier
     */
    public Retrier retrier() {
        return this.retrier;
    }

    /**
     * Starts a call: its attempts, from the first, and the waits between them, as the class
     * documentation describes. The first attempt is started on this thread, unless a cool-down delays it.
     *
     * @param <T> what an attempt's result is
     * @param operation the kind of call, for the listeners
     * @param context the call's context, shared by every attempt; its cancellation and deadline end the
     *     call as {@link RetryExecution} says
     * @param attempts starts each attempt
     * @return the call's outcome: the result of the attempt that succeeded, or one
     *     {@linkplain Attempt#handedBack handed back}; or failed with the exception the execution gave up
     *     with ({@link ExhaustedException}, {@link CancellationException}, {@link DeadlineExceededException},
     *     {@link ShutdownException}, a permanent failure as the attempt told it), or with what an attempt
     *     {@linkplain Attempt#abandoned abandoned} the call with. Cancelling it ends the call.
     * @throws NullPointerException if an argument is {@code null}
     */
    public <T extends @Nullable Object> CompletableFuture<T> call(Operation operation, CallContext context,
            Attempts<T> attempts) {
        Objects.requireNonNull(operation, "operation must not be null");
        Objects.requireNonNull(context, "context must not be null");
        Objects.requireNonNull(attempts, "attempts must not be null");
        CompletableFuture<T> result = new CompletableFuture<>();
        Optional<RuntimeException> done = context.failure();
        if (done.isPresent()) {
            result.completeExceptionally(done.get());
            return result;
        }
        new Call<>(this, this.retrier.start(operation, context), context, attempts, result,
                timeoutOf(operation)).begin();
        return result;
    }

    /** The timeout of each attempt of an operation: an invoke's attempt timeout, a stream's first-token timeout. */
    private @Nullable Duration timeoutOf(Operation operation) {
        Timeouts timeouts = this.retrier.timeouts();
        return ((operation == Operation.INVOKE) ? timeouts.attempt() : timeouts.firstToken()).orElse(null);
    }

    @Override
    public String toString() {
        return "AsyncRetry[retrier=" + this.retrier + ", scheduler=" + this.scheduler + "]";
    }

    /**
     * Starts the attempts of one call of an {@link AsyncRetry}.
     *
     * @param <T> what an attempt's result is
     */
    @FunctionalInterface
    public interface Attempts<T extends @Nullable Object> {

        /**
         * Starts one attempt, which tells its outcome to {@code attempt} once, now or later, from any
         * thread. Must not block. A {@link RuntimeException} thrown here before the outcome was told is the
         * attempt's failure; an {@link Error} ends the call.
         *
         * @param attempt the attempt, with its number, to tell the outcome to
         */
        void attempt(Attempt<T> attempt);

        /**
         * Releases a result that will never reach the caller: the call's future was completed or cancelled
         * before it, a listener threw an {@link Error} on hearing of its success, or its attempt's outcome
         * had already been told. Closes a response, say.
         *
         * @param result the result
         * @param thrown why it will not reach the caller; a failure to release may be added as suppressed
         */
        default void release(T result, Throwable thrown) {
        }
    }

    /**
     * One attempt of a call: where its outcome is told, once. What is told after the first is released
     * (a result) or ignored (a failure). Thread-safe.
     *
     * @param <T> what the attempt's result is
     */
    public static final class Attempt<T extends @Nullable Object> {

        private final Call<T> call;

        private final int number;

        private final AtomicBoolean told = new AtomicBoolean();

        /** The attempt's timeout, or {@code null} when none applies. */
        private final @Nullable Duration timeout;

        /** What its owner registered to abort the attempt when its timeout passes. */
        private final List<Runnable> aborts = new CopyOnWriteArrayList<>();

        private final AtomicBoolean timedOut = new AtomicBoolean();

        /** Whether the owner opted in to the loop's timeout by registering an abort action. */
        private final AtomicBoolean armed = new AtomicBoolean();

        private volatile WaitScheduler.@Nullable Scheduled timer;

        Attempt(Call<T> call, int number, @Nullable Duration timeout) {
            this.call = call;
            this.number = number;
            this.timeout = timeout;
        }

        /**
         * Returns the timeout of this attempt: the retrier's {@linkplain Timeouts#attempt() attempt
         * timeout} for an {@link Operation#INVOKE}, its {@linkplain Timeouts#firstToken() first-token
         * timeout} for an {@link Operation#STREAM} (whose owner tells {@link #succeeded} once the stream
         * is established, which stops it).
         *
         * @return the timeout, empty when none is set
         */
        public Optional<Duration> timeout() {
            return Optional.ofNullable(this.timeout);
        }

        /**
         * Registers what aborts the attempt when its {@linkplain #timeout() timeout} passes before its
         * outcome was told: cancels its request, closes its connection, disposes its subscription. The
         * first registration starts the attempt's timeout on the loop's scheduler: an owner that times
         * its attempts itself registers nothing, and the loop then never times them. When
         * the timeout passes (and the call's context is not done, whose cancellation or deadline always
         * wins), the loop takes the attempt as failed with an {@link AttemptTimeoutException}, runs
         * these actions in the order registered on the scheduler's thread, and decides the failure:
         * what the owner tells afterwards is ignored, or released if a result. Registered after the
         * timeout passed, an action runs at once on this thread; with no timeout it never runs.
         *
         * @param abort quick and non-blocking; what it throws is added to the timeout's failure as
         *     suppressed
         * @throws NullPointerException if {@code abort} is {@code null}
         */
        public void onTimeout(Runnable abort) {
            Objects.requireNonNull(abort, "abort must not be null");
            this.aborts.add(abort);
            if (this.armed.compareAndSet(false, true)) {
                arm(this.call.retry.scheduler);
            }
            // Timed out meanwhile: expire() may have run the actions before this one was added.
            if (this.timedOut.get() && this.aborts.remove(abort)) {
                abort.run();
            }
        }

        /**
         * Tells whether the attempt's timeout passed before its outcome was told, so that the loop
         * failed it with an {@link AttemptTimeoutException}.
         *
         * @return {@code true} once the attempt timed out
         */
        public boolean timedOut() {
            return this.timedOut.get();
        }

        /** Starts the attempt's timeout on the call's scheduler; a scheduler that refuses leaves it untimed. */
        void arm(WaitScheduler scheduler) {
            Duration limit = this.timeout;
            if (limit == null) {
                return;
            }
            try {
                this.timer = scheduler.schedule(limit, new WaitScheduler.Wait() {

                    @Override
                    public void elapsed() {
                        expire(limit);
                    }

                    @Override
                    public void abandoned() {
                        // The scheduler stopped: the waits of the call end it with a ShutdownException.
                    }
                });
            }
            catch (RejectedExecutionException refused) {
                return;
            }
            if (this.told.get()) {
                disarm();
            }
        }

        void disarm() {
            WaitScheduler.Scheduled scheduled = this.timer;
            if (scheduled != null) {
                scheduled.cancel();
            }
        }

        private void expire(Duration limit) {
            if (this.call.context.isDone() || !this.told.compareAndSet(false, true)) {
                return;
            }
            this.timedOut.set(true);
            AttemptTimeoutException failure = new AttemptTimeoutException(limit);
            for (Runnable abort : this.aborts) {
                if (this.aborts.remove(abort)) {
                    try {
                        abort.run();
                    }
                    catch (RuntimeException ex) {
                        failure.addSuppressed(ex);
                    }
                }
            }
            this.call.run(() -> this.call.failed(failure));
        }

        /**
         * Returns the attempt's number.
         *
         * @return the 1-based number
         */
        public int number() {
            return this.number;
        }

        /**
         * Tells that the attempt succeeded: the listeners hear of it, and the call completes with the
         * result.
         *
         * @param result the result, {@code null} when the attempt has none
         * @throws Error whatever a listener threw as an {@link Error}, the result released and the call
         *     ended with it
         */
        public void succeeded(T result) {
            if (take(result)) {
                this.call.run(() -> this.call.succeeded(result, null));
            }
        }

        /**
         * Tells that the attempt failed permanently, with a result that the caller gets in place of an
         * exception (an HTTP response with an error status, say): the listeners hear of the failure, and
         * the call completes with the result.
         *
         * @param result the result the failure stands for
         * @param failure the failure, which must be permanent
         * @throws NullPointerException if {@code failure} is {@code null}
         * @throws Error whatever a listener threw as an {@link Error}, the result released
         */
        public void handedBack(T result, RuntimeException failure) {
            Objects.requireNonNull(failure, "failure must not be null");
            if (take(result)) {
                this.call.run(() -> this.call.succeeded(result, failure));
            }
        }

        /**
         * Tells that the attempt failed. A {@link RuntimeException} is decided: the call gives up, or
         * waits and makes the next attempt. Anything else (an {@link Error}, a checked exception) ends the
         * call as it is, untold to the listeners, as {@link #abandoned} does.
         *
         * @param thrown what the attempt failed with
         * @throws NullPointerException if {@code thrown} is {@code null}
         * @throws Error whatever a listener threw as an {@link Error}
         */
        public void failed(Throwable thrown) {
            Objects.requireNonNull(thrown, "thrown must not be null");
            if (this.told.compareAndSet(false, true)) {
                disarm();
                this.call.run(() -> this.call.failed(thrown));
            }
        }

        /**
         * Ends the call with {@code cause} as it is, neither decided nor told to the listeners: what ended
         * the attempt is not a failure of the provider's (a bug, a read that threw). The attempt's
         * observation is ended as {@linkplain RetryExecution#abandoned abandoned}.
         *
         * @param cause what the call ends with
         * @throws NullPointerException if {@code cause} is {@code null}
         */
        public void abandoned(Throwable cause) {
            Objects.requireNonNull(cause, "cause must not be null");
            if (this.told.compareAndSet(false, true)) {
                disarm();
                this.call.end(cause);
            }
        }

        private boolean take(T result) {
            if (this.told.compareAndSet(false, true)) {
                disarm();
                return true;
            }
            this.call.attempts.release(result,
                    new IllegalStateException("Attempt " + this.number + " had already told its outcome"));
            return false;
        }

        boolean isTold() {
            return this.told.get();
        }

        @Override
        public String toString() {
            return "Attempt[" + this.number + " of " + this.call.execution + "]";
        }
    }

    /** One call: its execution, its future and the wait in progress. */
    static final class Call<T extends @Nullable Object> {

        private final AsyncRetry retry;

        private final RetryExecution execution;

        private final CallContext context;

        final Attempts<T> attempts;

        private final CompletableFuture<T> result;

        /** The latest wait, so that a cancellation of the future can end it. */
        private volatile @Nullable Pause pause;

        /** Each attempt's timeout, or {@code null}. */
        private final @Nullable Duration timeout;

        /** The latest attempt, so that a cancellation of the future can withdraw its timeout. */
        private volatile @Nullable Attempt<T> current;

        Call(AsyncRetry retry, RetryExecution execution, CallContext context, Attempts<T> attempts,
                CompletableFuture<T> result, @Nullable Duration timeout) {
            this.retry = retry;
            this.execution = execution;
            this.context = context;
            this.attempts = attempts;
            this.result = result;
            this.timeout = timeout;
        }

        // The callback is registered for its effect and throws nothing: its future is not needed.
        @SuppressWarnings("FutureReturnValueIgnored")
        void begin() {
            this.result.whenComplete((value, failure) -> {
                if (this.result.isCancelled()) {
                    cancelled();
                }
            });
            run(this::cooldownThenAttempt);
        }

        /** Runs one step of the call; whatever it throws ends the call with that. */
        void run(Runnable step) {
            try {
                step.run();
            }
            catch (RuntimeException ex) {
                end(ex);
            }
            catch (Error ex) {
                end(ex);
                throw ex;
            }
        }

        /** Ends the call with {@code failure}, the observation of the attempt in flight, if any, too. */
        void end(Throwable failure) {
            try {
                this.execution.abandoned(failure);
            }
            finally {
                this.result.completeExceptionally(failure);
            }
        }

        private void cooldownThenAttempt() {
            Duration cooldown = this.execution.cooldownBeforeAttempt();
            if (!cooldown.isZero()) {
                pause(cooldown, () -> {
                    this.execution.endCooldownWait();
                    cooldownThenAttempt();
                });
                return;
            }
            // Cancelled meanwhile: no attempt; its observation was ended as it began.
            if (this.result.isDone()) {
                return;
            }
            Attempt<T> attempt = new Attempt<>(this, this.execution.attempt(), this.timeout);
            this.current = attempt;
            try {
                this.attempts.attempt(attempt);
            }
            catch (RuntimeException ex) {
                if (attempt.isTold()) {
                    throw ex;
                }
                attempt.failed(ex);
            }
        }

        /** Tells of a success, or of a permanent failure handed back as {@code value}, and completes. */
        void succeeded(T value, @Nullable RuntimeException handedBack) {
            try {
                if (handedBack != null) {
                    this.execution.failed(handedBack);
                }
                else {
                    this.execution.succeeded();
                }
            }
            catch (Error ex) {
                // The caller never gets the result, so nobody else could release it.
                this.attempts.release(value, ex);
                throw ex;
            }
            if (!this.result.complete(value)) {
                this.attempts.release(value, new CancellationException("The call ended before its result"));
            }
        }

        void failed(Throwable thrown) {
            // An Error, or a checked exception: not a failed attempt to decide about; it ends the call as it is.
            if (!(thrown instanceof RuntimeException failure)) {
                end(thrown);
                return;
            }
            RetryExecution.Decision decision = this.execution.failed(failure);
            if (!decision.isRetry()) {
                this.result.completeExceptionally(decision.failure());
                return;
            }
            pause(decision.delay(), () -> {
                this.execution.beginNextAttempt();
                cooldownThenAttempt();
            });
        }

        private void pause(Duration delay, Runnable next) {
            Pause wait = new Pause(next);
            this.pause = wait;
            wait.begin(delay);
            // Cancelled as the wait began: the cancellation may not have seen it.
            if (this.result.isCancelled()) {
                wait.dismiss();
            }
        }

        private void cancelled() {
            Pause wait = this.pause;
            if (wait != null) {
                wait.dismiss();
            }
            Attempt<T> attempt = this.current;
            if (attempt != null) {
                attempt.disarm();
            }
            this.execution.abandoned(new CancellationException("The call's future was cancelled"));
        }

        /**
         * One wait before an attempt, ended by whichever comes first: its delay, the context's
         * cancellation, the application's shutdown (each then runs what comes next, which ends the call
         * as the execution says), the scheduler's stop, or the future's cancellation (which runs nothing).
         */
        private final class Pause implements WaitScheduler.Wait {

            private final AtomicBoolean ended = new AtomicBoolean();

            private final Runnable next;

            private volatile CallContext.@Nullable Registration cancelled;

            private volatile CallContext.@Nullable Registration shutDown;

            private volatile WaitScheduler.@Nullable Scheduled timer;

            Pause(Runnable next) {
                this.next = next;
            }

            void begin(Duration delay) {
                // Each may end the wait at once, on this thread; what was registered after that is withdrawn.
                this.cancelled = Call.this.context.onCancel(this::elapsed);
                Optional<ShutdownSignal> signal = Call.this.retry.retrier.shutdownSignal();
                if (signal.isPresent()) {
                    this.shutDown = signal.get().onShutDown(this::elapsed);
                }
                try {
                    this.timer = Call.this.retry.scheduler.schedule(delay, this);
                }
                catch (RejectedExecutionException refused) {
                    abandoned();
                }
                if (this.ended.get()) {
                    release();
                }
            }

            @Override
            public void elapsed() {
                if (this.ended.compareAndSet(false, true)) {
                    release();
                    run(this.next);
                }
            }

            @Override
            public void abandoned() {
                if (this.ended.compareAndSet(false, true)) {
                    release();
                    run(() -> end(Call.this.execution.waitAbandoned()));
                }
            }

            void dismiss() {
                if (this.ended.compareAndSet(false, true)) {
                    release();
                }
            }

            private void release() {
                CallContext.Registration registration = this.cancelled;
                if (registration != null) {
                    registration.close();
                }
                registration = this.shutDown;
                if (registration != null) {
                    registration.close();
                }
                WaitScheduler.Scheduled scheduled = this.timer;
                if (scheduled != null) {
                    scheduled.cancel();
                }
            }
        }
    }
}
