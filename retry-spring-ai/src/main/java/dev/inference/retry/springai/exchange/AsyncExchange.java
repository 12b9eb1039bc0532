package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryExecution;
import dev.inference.retry.ShutdownSignal;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One exchange of {@link RetryingExchanges#executeAsync}: its attempts, its waits and its outcome,
 * driven by callbacks, with no thread blocked.
 *
 * <p>The exchange moves on from one callback to the next: an attempt's completion (on the transport's
 * thread), the reading of a successful body (on the body reader executor, where the SDK then reads on
 * what is left of a stream: {@link StreamHandOff}), the end of a wait (on the timer thread, or on the
 * thread that cancelled the call or fired the shutdown signal). Exactly one of them runs at any time, so
 * the call's {@link RetryExecution} is used by one thread at a time, each handing over to the next
 * through the future, executor or timer that starts it; the end of a wait is claimed once, by whichever
 * of the timer, the cancellation and the shutdown signal comes first. On the success path nothing else
 * moves the exchange to another thread, and no timer is asked for a wait that is not needed.
 *
 * @param <R> the SDK's HTTP response interface
 */
final class AsyncExchange<R> {

    private final RetryingExchanges<R> exchanges;

    private final Retrier retrier;

    private final Object request;

    private final Function<Object, CompletableFuture<R>> transport;

    private final Operation operation;

    private final CallContext context;

    private final CompletableFuture<R> result = new CompletableFuture<>();

    /** The call's decisions, from its first failure (or its first attempt when a cool-down may apply). */
    private @Nullable RetryExecution execution;

    /** The attempt in flight, so that a cancellation can cancel it. */
    private volatile @Nullable CompletableFuture<R> inFlight;

    AsyncExchange(RetryingExchanges<R> exchanges, Object request, Function<Object, CompletableFuture<R>> transport,
            Operation operation, CallContext context) {
        this.exchanges = exchanges;
        this.retrier = exchanges.retrier();
        this.request = request;
        this.transport = transport;
        this.operation = operation;
        this.context = context;
    }

    /**
     * Starts the exchange.
     *
     * @return the future of its outcome; cancelling it cancels the call's context
     */
    // The whenComplete callback is registered for its effect and throws nothing: its future is not needed.
    @SuppressWarnings("FutureReturnValueIgnored")
    CompletableFuture<R> start() {
        Optional<RuntimeException> done = this.context.failure();
        if (done.isPresent()) {
            this.result.completeExceptionally(done.get());
            return this.result;
        }
        CallContext.Registration cancelAttempt = this.context.onCancel(this::cancelInFlight);
        this.result.whenComplete((response, failure) -> {
            if (this.result.isCancelled()) {
                this.context.cancel();
            }
            cancelAttempt.close();
        });
        drive(() -> {
            if (this.retrier.needsExecutionFromFirstAttempt()) {
                this.execution = this.retrier.start(this.operation, this.context);
                cooldownThenAttempt();
            }
            else {
                attempt();
            }
        });
        return this.result;
    }

    // The whenComplete callback hands the outcome to drive(), which throws nothing: its future is not needed.
    @SuppressWarnings("FutureReturnValueIgnored")
    private void attempt() {
        if (this.result.isDone()) {
            return;
        }
        RetryExecution current = this.execution;
        int number = (current != null) ? current.attempt() : 1;
        CompletableFuture<R> attempt;
        try {
            attempt = this.transport.apply(this.exchanges.forAttempt(this.request, number));
        }
        catch (RuntimeException ex) {
            decide(RetryingExchanges.Outcome.failed(this.exchanges.sdk().failures().transportException(ex)));
            return;
        }
        this.inFlight = attempt;
        // Cancelled while the attempt was being started: the cancellation may not have seen it.
        if (this.context.isDone()) {
            attempt.cancel(true);
        }
        attempt.whenComplete((response, thrown) -> drive(() -> attemptEnded(attempt, response, thrown)));
    }

    private void attemptEnded(CompletableFuture<R> attempt, @Nullable R response, @Nullable Throwable thrown) {
        this.inFlight = null;
        if (thrown != null || response == null) {
            Throwable failure = unwrap(thrown);
            // An Error, or a checked exception: not a failed attempt to decide about; it ends the call as it is.
            if (!(failure instanceof RuntimeException runtime)) {
                abandon(failure);
                this.result.completeExceptionally(failure);
                return;
            }
            // Only the call's cancellation cancels an attempt: the caller gave up, the provider did not fail.
            RuntimeException attemptFailure = attempt.isCancelled()
                    ? RetryingExchanges.endedByCancellation(this.context, runtime)
                    : this.exchanges.sdk().failures().transportException(runtime);
            decide(RetryingExchanges.Outcome.failed(attemptFailure));
            return;
        }
        RetryingExchanges.Outcome<R> outcome = this.exchanges.classify(response);
        if (outcome != null) {
            decide(outcome);
            return;
        }
        // Reading the body blocks until it arrives: never on the transport's thread.
        try {
            this.exchanges.bodyReader().execute(() -> drive(() -> bodyRead(response)));
        }
        catch (RejectedExecutionException ex) {
            this.exchanges.sdk().close(response);
            decide(RetryingExchanges.Outcome.failed(ex));
        }
    }

    /**
     * On the body reader: reads the attempt's part of the body, and decides there, where the SDK then
     * reads the rest of a stream ({@link StreamHandOff}).
     */
    private void bodyRead(R response) {
        RetryingExchanges.Outcome<R> outcome = this.exchanges.read(response, this.operation, this.context);
        StreamHandOff.handOver(this.exchanges.bodyReader(), () -> decide(outcome));
    }

    private void decide(RetryingExchanges.Outcome<R> outcome) {
        if (outcome.isSuccess()) {
            succeed(outcome.response());
            return;
        }
        RetryExecution current = this.execution;
        if (current == null) {
            current = this.retrier.start(this.operation, this.context);
            this.execution = current;
        }
        // The attempt's own failure, even when the caller gave up meanwhile: the execution puts a permanent
        // failure and used-up attempts before the cancellation, and cools the key and charges the budget first.
        RetryExecution.Decision decision = this.exchanges.decide(current, outcome);
        if (outcome.handsOver()) {
            complete(outcome.response());
            return;
        }
        if (!decision.isRetry()) {
            this.result.completeExceptionally(decision.failure());
            return;
        }
        RetryExecution retrying = current;
        new Wait(outcome.failure(), () -> {
            retrying.beginNextAttempt();
            cooldownThenAttempt();
        }).begin(decision.delay());
    }

    private void cooldownThenAttempt() {
        RetryExecution current = Objects.requireNonNull(this.execution);
        Duration cooldown = current.cooldownBeforeAttempt();
        if (cooldown.isZero()) {
            attempt();
            return;
        }
        new Wait(null, () -> {
            current.endCooldownWait();
            cooldownThenAttempt();
        }).begin(cooldown);
    }

    private void succeed(R response) {
        RetryExecution current = this.execution;
        try {
            if (current == null) {
                this.retrier.firstAttemptSucceeded(this.operation);
            }
            else {
                current.succeeded();
            }
        }
        catch (Error ex) {
            this.exchanges.sdk().close(response);
            throw ex;
        }
        complete(response);
    }

    private void complete(R response) {
        if (!this.result.complete(response)) {
            // The call was cancelled meanwhile: nobody will read this response.
            this.exchanges.sdk().close(response);
        }
    }

    private void cancelInFlight() {
        CompletableFuture<R> attempt = this.inFlight;
        if (attempt != null) {
            attempt.cancel(true);
        }
    }

    /** Runs one step of the exchange; whatever it throws ends the call with that. */
    private void drive(Runnable step) {
        try {
            step.run();
        }
        catch (RuntimeException ex) {
            abandon(ex);
            this.result.completeExceptionally(ex);
        }
        catch (Error ex) {
            abandon(ex);
            this.result.completeExceptionally(ex);
            throw ex;
        }
    }

    /** Ends the observation of the attempt in flight, if any: it will never tell its outcome. */
    private void abandon(Throwable cause) {
        RetryExecution current = this.execution;
        if (current != null) {
            current.abandoned(cause);
        }
    }

    private static Throwable unwrap(@Nullable Throwable thrown) {
        Throwable failure = (thrown != null) ? thrown : new IllegalStateException("The transport completed with no response");
        while ((failure instanceof CompletionException || failure instanceof ExecutionException)
                && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }

    @Override
    public String toString() {
        return "AsyncExchange[" + this.retrier.name() + ", " + this.operation + ", " + this.request + "]";
    }

    /**
     * One wait before an attempt, ended by whichever comes first: its delay, the call's cancellation or
     * the application's shutdown. Only the first runs what comes next.
     */
    private final class Wait implements RetryTimer.Timeout {

        private final AtomicBoolean ended = new AtomicBoolean();

        private final @Nullable RuntimeException cause;

        private final Runnable next;

        private volatile CallContext.@Nullable Registration cancelled;

        private volatile CallContext.@Nullable Registration shutDown;

        private volatile RetryTimer.@Nullable Scheduled timer;

        Wait(@Nullable RuntimeException cause, Runnable next) {
            this.cause = cause;
            this.next = next;
        }

        void begin(Duration delay) {
            // Each registration may end the wait at once, on this thread; what was registered after that is withdrawn.
            this.cancelled = AsyncExchange.this.context.onCancel(this::end);
            Optional<ShutdownSignal> signal = AsyncExchange.this.retrier.shutdownSignal();
            if (signal.isPresent()) {
                this.shutDown = signal.get().onShutDown(this::end);
            }
            this.timer = AsyncExchange.this.exchanges.timer().schedule(delay, this);
            if (this.ended.get()) {
                release();
            }
        }

        @Override
        public void fire() {
            end();
        }

        @Override
        public void abandon() {
            if (this.ended.compareAndSet(false, true)) {
                release();
                ShutdownException closed = new ShutdownException(
                        "The retry timer was closed during a wait: the application is shutting down");
                if (this.cause != null) {
                    closed.addSuppressed(this.cause);
                }
                AsyncExchange.this.result.completeExceptionally(closed);
            }
        }

        private void end() {
            if (this.ended.compareAndSet(false, true)) {
                release();
                drive(this.next);
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
            RetryTimer.Scheduled scheduled = this.timer;
            if (scheduled != null) {
                scheduled.cancel();
            }
        }
    }
}
