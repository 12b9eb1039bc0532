package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.retry.AsyncRetry;
import dev.inference.retry.Operation;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one exchange of {@link RetryingExchanges#executeAsync}, for the core's non-blocking
 * loop ({@link AsyncRetry}), which decides, and waits on the exchanges' {@link WaitScheduler}.
 *
 * <p>An attempt moves on from one callback to the next: its completion on the transport's thread, then
 * the reading of a successful body on the body reader executor, where its outcome is told, so that the
 * SDK reads on what is left of a stream there ({@link StreamHandOff}). Cancelling the exchange's future
 * cancels the call's context, which cancels the attempt in flight. On the success path nothing else moves
 * the exchange to another thread.
 *
 * @param <R> the SDK's HTTP response interface
 */
final class AsyncExchange<R> implements AsyncRetry.Attempts<R> {

    private final RetryingExchanges<R> exchanges;

    private final Object request;

    private final Function<Object, CompletableFuture<R>> transport;

    private final Operation operation;

    private final CallContext context;

    /** The attempt in flight, so that a cancellation can cancel it. */
    private volatile @Nullable CompletableFuture<R> inFlight;

    /** Cancels the attempt in flight: registered on the call's context, and on each timed attempt's. */
    private final Runnable cancelInFlight = this::cancelInFlight;

    AsyncExchange(RetryingExchanges<R> exchanges, Object request, Function<Object, CompletableFuture<R>> transport,
            Operation operation, CallContext context) {
        this.exchanges = exchanges;
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
        CallContext.Registration cancelAttempt = this.context.onCancel(this.cancelInFlight);
        CompletableFuture<R> result = AsyncRetry.of(this.exchanges.retrier(), this.exchanges.waits())
            .call(this.operation, this.context, this);
        result.whenComplete((response, failure) -> {
            if (result.isCancelled()) {
                this.context.cancel();
            }
            cancelAttempt.close();
        });
        return result;
    }

    // The whenComplete callback tells the outcome, and throws nothing back: its future is not needed.
    @SuppressWarnings("FutureReturnValueIgnored")
    @Override
    public void attempt(AsyncRetry.Attempt<R> attempt) {
        // An attempt with a timeout of its own runs in a scope that the timer ends; one without, in the call's context.
        Optional<Duration> timeout = this.exchanges.attemptTimeout(this.operation);
        Timed timed;
        try {
            timed = timeout.isPresent()
                    ? new Timed(this.exchanges, this.context, timeout.get(), this.operation, this.cancelInFlight) : null;
        }
        catch (RejectedExecutionException ex) {
            attempt.failed(ex);
            return;
        }
        CompletableFuture<R> sent;
        try {
            sent = this.transport.apply(this.exchanges.forAttempt(this.request, attempt.number()));
        }
        catch (RuntimeException ex) {
            failed(attempt, timed, this.exchanges.sdk().failures().transportException(ex));
            return;
        }
        this.inFlight = sent;
        // Cancelled, or timed out, while the attempt was being started: the cancellation may not have seen it.
        if (this.context.isDone() || (timed != null && timed.scope.context().isDone())) {
            sent.cancel(true);
        }
        sent.whenComplete((response, thrown) -> telling(attempt, timed,
                () -> attemptEnded(attempt, timed, sent, response, thrown)));
    }

    private void attemptEnded(AsyncRetry.Attempt<R> attempt, @Nullable Timed timed, CompletableFuture<R> sent,
            @Nullable R response, @Nullable Throwable thrown) {
        this.inFlight = null;
        if (thrown != null || response == null) {
            Throwable failure = unwrap(thrown);
            // Only the call's cancellation or the attempt's timeout cancels an attempt: the provider did not fail.
            if (failure instanceof RuntimeException runtime) {
                RuntimeException ended = sent.isCancelled() ? RetryingExchanges.endedByCancellation(this.context, runtime)
                        : this.exchanges.sdk().failures().transportException(runtime);
                failed(attempt, timed, ended);
                return;
            }
            close(timed);
            attempt.failed(failure);
            return;
        }
        RetryingExchanges.Outcome<R> outcome = this.exchanges.classify(response);
        if (outcome != null) {
            tell(attempt, timed, outcome);
            return;
        }
        // Reading the body blocks until it arrives: never on the transport's thread.
        try {
            this.exchanges.bodyReader().execute(() -> telling(attempt, timed, () -> bodyRead(attempt, timed, response)));
        }
        catch (RejectedExecutionException ex) {
            this.exchanges.sdk().close(response);
            close(timed);
            attempt.failed(ex);
        }
    }

    /**
     * On the body reader: reads the attempt's part of the body, within the attempt's timeout, and tells
     * the outcome there, where the SDK then reads the rest of a stream ({@link StreamHandOff}).
     */
    private void bodyRead(AsyncRetry.Attempt<R> attempt, @Nullable Timed timed, R response) {
        RetryingExchanges.Outcome<R> outcome = (timed != null)
                ? this.exchanges.read(response, this.operation, timed.scope.context(), timed.streamDeadline)
                : this.exchanges.read(response, this.operation, this.context, null);
        StreamHandOff.handOver(this.exchanges.bodyReader(), () -> tell(attempt, timed, outcome));
    }

    /** Tells a failure, as the attempt's timeout makes it, once the attempt's scope is over. */
    private static void failed(AsyncRetry.Attempt<?> attempt, @Nullable Timed timed, RuntimeException failure) {
        RuntimeException told = (timed != null) ? RetryingExchanges.attemptFailure(timed.scope, failure) : failure;
        close(timed);
        attempt.failed(told);
    }

    private static void close(@Nullable Timed timed) {
        if (timed != null) {
            timed.close();
        }
    }

    private void tell(AsyncRetry.Attempt<R> attempt, @Nullable Timed timed, RetryingExchanges.Outcome<R> outcome) {
        if (!outcome.isSuccess() && !outcome.handsOver()) {
            failed(attempt, timed, Objects.requireNonNull(outcome.failure()));
            return;
        }
        close(timed);
        tell(attempt, outcome);
    }

    private void tell(AsyncRetry.Attempt<R> attempt, RetryingExchanges.Outcome<R> outcome) {
        if (outcome.isSuccess()) {
            attempt.succeeded(outcome.response());
        }
        else if (outcome.handsOver()) {
            attempt.handedBack(outcome.response(), Objects.requireNonNull(outcome.failure()));
        }
        else {
            attempt.failed(Objects.requireNonNull(outcome.failure()));
        }
    }

    /** A response that nobody will read: the call ended before it, or a listener's Error kept it back. */
    @Override
    public void release(R response, Throwable thrown) {
        this.exchanges.sdk().close(response);
    }

    /** Runs a step of an attempt; what it throws rather than tells ends the call with that, undecided. */
    private static void telling(AsyncRetry.Attempt<?> attempt, @Nullable Timed timed, Runnable step) {
        try {
            step.run();
        }
        catch (RuntimeException ex) {
            close(timed);
            attempt.abandoned(ex);
        }
        catch (Error ex) {
            close(timed);
            attempt.abandoned(ex);
            throw ex;
        }
    }

    private void cancelInFlight() {
        CompletableFuture<R> attempt = this.inFlight;
        if (attempt != null) {
            attempt.cancel(true);
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
        return "AsyncExchange[" + this.exchanges.retrier().name() + ", " + this.operation + ", " + this.request + "]";
    }

    /**
     * What times one attempt that has a timeout of its own: its scope, started from the call's context
     * before the request is sent; a stream's deadline, which the idle watch takes over once the content
     * has begun; and the cancellation of the request in flight when the scope's context is cancelled.
     * All of it is made at once on the thread that starts the attempt, and closed once where the
     * attempt's outcome is told: on the body reader when a response was read, so that the transport's
     * thread, which only hands the response on, touches none of it.
     */
    private static final class Timed {

        final AttemptScope scope;

        final @Nullable StreamDeadline streamDeadline;

        private final CallContext.Registration cancelsRequest;

        /**
         * Starts the attempt's scope, timed by the stream's deadline when there is one.
         *
         * @param cancelRequest cancels the request in flight, if any: the caller must cancel a request
         *     that it sends once the scope's context is done, which this may not have seen
         * @throws RejectedExecutionException when the timer is closed: the attempt is not started
         */
        Timed(RetryingExchanges<?> exchanges, CallContext call, Duration timeout, Operation operation,
                Runnable cancelRequest) {
            this.streamDeadline = exchanges.streamDeadline(operation);
            this.scope = exchanges.startAttempt(call, timeout, this.streamDeadline);
            this.cancelsRequest = this.scope.context().onCancel(cancelRequest);
        }

        void close() {
            this.cancelsRequest.close();
            this.scope.close();
        }
    }
}
