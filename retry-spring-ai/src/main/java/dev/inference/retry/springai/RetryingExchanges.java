package dev.inference.retry.springai;

import dev.inference.client.CallContext;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryExecution;
import dev.inference.retry.ShutdownSignal;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Makes the HTTP exchanges of one provider SDK, each retried with the decisions of a {@link Retrier}:
 * the layer beneath the SDK's own retries (which must be off), its logging and its error handling. The
 * SDK's types are reached through its {@link SdkHttp}; the SDK's retrying HTTP client
 * ({@link RetryingOpenAiHttpClient}, {@link RetryingAnthropicHttpClient}) hands each call here with its
 * transport.
 *
 * <p>One exchange is one request and its response. An attempt's outcome is:
 * <ul>
 * <li>a response with status 400 or more: a failure typed as {@link HttpStatusException}, with the
 * provider's wait from {@code retry-after-ms}, else {@code Retry-After};</li>
 * <li>the SDK's I/O exception from the transport (connection refused or reset, timeout): a network
 * failure;</li>
 * <li>for a successful event stream ({@code text/event-stream}), its first event that is not
 * {@linkplain SdkHttp#isPreamble preamble}: an error there is the provider's failure, sent before any
 * content, and is classified by its type (rate limit, server error, overloaded: retryable; anything
 * else: permanent). Only up to that event is read, and every byte read is handed on, so the SDK parses
 * the stream as the provider sent it;</li>
 * <li>anything else: success. The response is handed over untouched, and what happens once its content
 * has begun (a stream cut after its first event, say) is final: it reaches the caller through the SDK,
 * and no byte is ever sent twice.</li>
 * </ul>
 *
 * <p>Where each failure ends, and why here: the SDK turns responses into its exceptions in its own
 * layer, above this one, and a decorated HTTP client sees responses, not those exceptions. So:
 * <ul>
 * <li>a permanent status, or a permanent error as a stream's first event, is handed over as the
 * response itself, and the caller gets exactly what the SDK throws for it (such as its
 * {@code BadRequestException});</li>
 * <li>when attempts run out, the exchange throws the {@link ExhaustedException} the retrier decided on.
 * Its cause is the last failure in the form the SDK throws it, built with the SDK's own builders from
 * the same status, headers and error body (its {@code RateLimitException}, {@code InternalServerException},
 * {@code UnexpectedStatusCodeException}, {@code SseException}), or the transport's I/O exception; each
 * carries the typed failure that classified it as its own cause. The SDK's layers above pass an
 * exception from the HTTP client through unchanged (its retries are off);</li>
 * <li>a call ended during a wait fails with what the retrier decided: a {@link CancellationException},
 * a {@link dev.inference.failure.ShutdownException} or a
 * {@link dev.inference.failure.DeadlineExceededException}, the failure that caused the wait
 * suppressed;</li>
 * <li>an attempt that fails as the call's context becomes done is decided on its own failure, as
 * {@link BlockingRetry} decides: a permanent failure is handed over, a retryable failure of the last
 * attempt allowed is exhausted, and only then does the context's failure end the call, that failure
 * suppressed. An attempt that the call's cancellation itself ended (its future cancelled, or its
 * first event's read ended by closing its response) fails with the context's
 * {@link CancellationException}.</li>
 * </ul>
 * A response that an {@link Error} (or an unexpected exception) leaves with nobody to read it, such
 * as one thrown while its first event is read, is closed before that is thrown on, unchanged.
 *
 * <p>Waits: {@link #execute} blocks its caller's thread (its attempts are a {@link BlockingRetry}'s),
 * which an interrupt or the retrier's {@link ShutdownSignal} wakes at once (an interrupt ends the call
 * with a {@link CancellationException} and the interrupt status restored). {@link #executeAsync} never blocks: a wait is a {@link RetryTimer}
 * task, and the next attempt starts from it (see {@link AsyncExchange}). Cancelling the returned future,
 * or cancelling the stream call's context (see {@link StreamCalls}), ends a wait at once, cancels an
 * attempt in flight, and makes no further request. Reading a stream's first event blocks, as the SDK's
 * own reading of it does, so {@code executeAsync} reads it on the given stream reader executor, never
 * on the transport's dispatcher threads.
 *
 * <p>A request whose body cannot be sent twice (not repeatable) is passed through once, as the SDK's
 * own retry would. Each retry carries {@value #RETRY_COUNT_HEADER} with the number of retries so far
 * when the request has that header. Thread-safe; every call's state lives in the call.
 *
 * @param <Q> the SDK's HTTP request type
 * @param <R> the SDK's HTTP response interface
 */
final class RetryingExchanges<Q, R> {

    /** The header in which the SDKs (both generated by Stainless) count the retries of a request. */
    static final String RETRY_COUNT_HEADER = "X-Stainless-Retry-Count";

    private static final String EVENT_STREAM = "text/event-stream";

    private final SdkHttp<Q, R> sdk;

    private final Retrier retrier;

    private final BlockingRetry blocking;

    private final RetryTimer timer;

    private final Executor streamReader;

    private final StreamCalls streamCalls;

    private final Clock clock;

    /**
     * Creates the exchanges of one SDK client.
     *
     * @param sdk the SDK's HTTP types and failures
     * @param retrier the decisions
     * @param timer the timer of {@link #executeAsync}'s waits
     * @param streamReader where {@link #executeAsync} reads a stream's first event, which blocks until it
     *     arrives; such as the SDK's stream handler executor
     * @param streamCalls the contexts of stream calls that a client wrapper cancels
     */
    RetryingExchanges(SdkHttp<Q, R> sdk, Retrier retrier, RetryTimer timer, Executor streamReader,
            StreamCalls streamCalls) {
        this.sdk = Objects.requireNonNull(sdk, "sdk must not be null");
        this.retrier = Objects.requireNonNull(retrier, "retrier must not be null");
        this.blocking = BlockingRetry.of(retrier);
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.streamReader = Objects.requireNonNull(streamReader, "streamReader must not be null");
        this.streamCalls = Objects.requireNonNull(streamCalls, "streamCalls must not be null");
        this.clock = Clock.systemUTC();
    }

    /**
     * Makes an exchange, retrying as the class documentation describes; blocks during waits.
     *
     * @param request the request as the SDK made it
     * @param transport makes one attempt: sends the request given and returns its response
     * @return the response of the first attempt that succeeded, or of a permanent failure, untouched
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the thread was interrupted during a wait
     * @throws RuntimeException what the transport threw, when it is not retryable
     */
    R execute(Q request, Function<Q, R> transport) {
        Q outgoing = withoutCallHeader(request);
        if (!this.sdk.isRepeatable(outgoing)) {
            return transport.apply(outgoing);
        }
        return this.blocking.call(operationOf(outgoing), CallContext.background(),
                new BlockingExchange(outgoing, transport)).response();
    }

    /**
     * Starts an exchange, retrying as the class documentation describes, without blocking.
     *
     * @param request the request as the SDK made it, naming its stream call in {@link StreamCalls#HEADER}
     *     if a client wrapper registered one
     * @param transport starts one attempt: sends the request given and returns the future of its response
     * @return a future of the response of the first attempt that succeeded, or of a permanent failure,
     *     untouched; or failed with the exception that ended the exchange. Cancelling it ends the
     *     exchange.
     */
    CompletableFuture<R> executeAsync(Q request, Function<Q, CompletableFuture<R>> transport) {
        List<String> callId = this.sdk.requestHeader(request, StreamCalls.HEADER);
        Q outgoing = withoutCallHeader(request);
        if (!this.sdk.isRepeatable(outgoing)) {
            return transport.apply(outgoing);
        }
        CallContext context;
        if (!callId.isEmpty()) {
            Optional<CallContext> registered = this.streamCalls.contextOf(callId.get(0));
            if (registered.isEmpty()) {
                return CompletableFuture.failedFuture(
                        new CancellationException("The stream was closed before its exchange began"));
            }
            context = registered.get();
        }
        else {
            context = CallContext.cancellable();
        }
        return new AsyncExchange<>(this, outgoing, transport, operationOf(outgoing), context).start();
    }

    Retrier retrier() {
        return this.retrier;
    }

    RetryTimer timer() {
        return this.timer;
    }

    Executor streamReader() {
        return this.streamReader;
    }

    SdkHttp<Q, R> sdk() {
        return this.sdk;
    }

    /** Tells the execution of a failed attempt; an Error from a listener still closes the response. */
    RetryExecution.Decision decide(RetryExecution execution, Outcome<R> outcome) {
        try {
            return execution.failed(Objects.requireNonNull(outcome.failure()));
        }
        catch (Error ex) {
            discard(outcome);
            throw ex;
        }
    }

    private Outcome<R> attemptBlocking(Q request, Function<Q, R> transport, int attempt) {
        R response;
        try {
            response = transport.apply(forAttempt(request, attempt));
        }
        catch (RuntimeException ex) {
            // An interrupt during the attempt shows as an I/O failure: it is the caller giving up, not the network.
            boolean interrupted = Thread.currentThread().isInterrupted();
            return Outcome.failed(interrupted ? ex : this.sdk.transportException(ex));
        }
        Outcome<R> outcome = classify(response);
        return (outcome != null) ? outcome : readFirstEvent(response, CallContext.background());
    }

    /**
     * Classifies a response by its status. Returns {@code null} for a successful event stream, whose
     * first event decides (see {@link #readFirstEvent}). Whatever reading its status and headers
     * throws is thrown, the response closed.
     */
    @Nullable Outcome<R> classify(R response) {
        HttpStatusException typed;
        try {
            int status = this.sdk.status(response);
            if (status < 400) {
                return (status >= 200 && status <= 299 && isEventStream(response)) ? null : Outcome.success(response);
            }
            typed = SdkFailures.statusFailure(status, (name) -> this.sdk.responseHeader(response, name), this.clock);
            if (!Classification.isRetryable(typed)) {
                return Outcome.handOver(response, typed);
            }
        }
        catch (RuntimeException | Error ex) {
            closeAfter(response, ex);
            throw ex;
        }
        try {
            return Outcome.failed(this.sdk.statusException(response, typed));
        }
        finally {
            this.sdk.close(response);
        }
    }

    /**
     * Reads a successful stream's first event, and classifies it. Blocks until it has arrived; closing
     * the response (as a cancellation of {@code context} does) ends the read, and the attempt then
     * fails with the context's failure. Whatever else is thrown here is thrown, the response closed.
     */
    Outcome<R> readFirstEvent(R response, CallContext context) {
        InputStream body;
        FirstSseEvent first;
        AtomicBoolean closedOnCancel = new AtomicBoolean();
        CallContext.Registration closeOnCancel = context.onCancel(() -> {
            closedOnCancel.set(true);
            this.sdk.close(response);
        });
        try {
            body = this.sdk.body(response);
            first = FirstSseEvent.read(body, FirstSseEvent.DEFAULT_LIMIT, this.sdk::isPreamble);
        }
        catch (IOException ex) {
            this.sdk.close(response);
            // What the SDK throws when reading a stream fails; nothing of it has reached the caller yet.
            return readFailed(this.sdk.streamException(ex), closedOnCancel.get(), context);
        }
        catch (RuntimeException ex) {
            this.sdk.close(response);
            return readFailed(this.sdk.transportException(ex), closedOnCancel.get(), context);
        }
        catch (Error ex) {
            closeAfter(response, ex);
            throw ex;
        }
        finally {
            closeOnCancel.close();
        }
        R whole;
        Optional<RuntimeException> inBand;
        try {
            whole = PeekedResponse.of(this.sdk.responseType(), response, body, first.bytesRead());
            FirstSseEvent.Event event = first.event();
            inBand = (event != null) ? this.sdk.inBandException(event, response) : Optional.empty();
        }
        catch (RuntimeException | Error ex) {
            closeAfter(response, ex);
            throw ex;
        }
        if (inBand.isEmpty()) {
            return Outcome.success(whole);
        }
        if (!Classification.isRetryable(inBand.get())) {
            return Outcome.handOver(whole, inBand.get());
        }
        this.sdk.close(whole);
        return Outcome.failed(inBand.get());
    }

    /** A read of the first event that failed: the caller gave up, if closing the response on it ended the read. */
    private Outcome<R> readFailed(RuntimeException failure, boolean closedOnCancel, CallContext context) {
        return Outcome.failed(closedOnCancel ? endedByCancellation(context, failure) : failure);
    }

    /**
     * Returns what an attempt fails with when the call's own cancellation ended it, by cancelling it or
     * by closing its response: the context's failure, with what the attempt threw suppressed. The
     * caller gave up; the provider did not fail.
     *
     * @param context the call's context, done
     * @param thrown what the attempt threw
     * @return the context's failure; {@code thrown} itself if the context is not done
     */
    static RuntimeException endedByCancellation(CallContext context, RuntimeException thrown) {
        Optional<RuntimeException> done = context.failure();
        if (done.isEmpty()) {
            return thrown;
        }
        done.get().addSuppressed(thrown);
        return done.get();
    }

    /**
     * Closes a response that nobody else will close, because {@code thrown} ends what was to hand it
     * on; a failure to close is added to {@code thrown} as suppressed, so that the caller can throw
     * {@code thrown} unchanged.
     */
    private void closeAfter(R response, Throwable thrown) {
        try {
            this.sdk.close(response);
        }
        catch (RuntimeException ex) {
            thrown.addSuppressed(ex);
        }
    }

    /** Closes the response of an outcome that will not be handed over after all. */
    void discard(Outcome<R> outcome) {
        if (outcome.handsOver()) {
            this.sdk.close(outcome.response());
        }
    }

    /** The request of an attempt: the retries so far in the retry count header, if the request has it. */
    Q forAttempt(Q request, int attempt) {
        if (attempt == 1 || this.sdk.requestHeader(request, RETRY_COUNT_HEADER).isEmpty()) {
            return request;
        }
        return this.sdk.withRequestHeader(request, RETRY_COUNT_HEADER, Integer.toString(attempt - 1));
    }

    private Q withoutCallHeader(Q request) {
        return this.sdk.requestHeader(request, StreamCalls.HEADER).isEmpty() ? request
                : this.sdk.withRequestHeader(request, StreamCalls.HEADER, null);
    }

    private Operation operationOf(Q request) {
        for (String accept : this.sdk.requestHeader(request, "Accept")) {
            if (accept.contains(EVENT_STREAM)) {
                return Operation.STREAM;
            }
        }
        return Operation.INVOKE;
    }

    private boolean isEventStream(R response) {
        for (String type : this.sdk.responseHeader(response, "Content-Type")) {
            if (type.toLowerCase(Locale.ROOT).startsWith(EVENT_STREAM)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "RetryingExchanges[retrier=" + this.retrier + "]";
    }

    /**
     * The attempts of one blocking exchange. A failure whose response is closed is thrown, for the retrier
     * to decide about; a permanent failure is handed back as its response.
     */
    private final class BlockingExchange implements BlockingRetry.Attempts<Outcome<R>, RuntimeException> {

        private final Q request;

        private final Function<Q, R> transport;

        BlockingExchange(Q request, Function<Q, R> transport) {
            this.request = request;
            this.transport = transport;
        }

        @Override
        public Outcome<R> attempt(int attempt) {
            Outcome<R> outcome = attemptBlocking(this.request, this.transport, attempt);
            if (!outcome.isSuccess() && !outcome.handsOver()) {
                throw Objects.requireNonNull(outcome.failure());
            }
            return outcome;
        }

        @Override
        public @Nullable RuntimeException handedBackFailureOf(Outcome<R> outcome) {
            return outcome.failure();
        }

        @Override
        public void release(Outcome<R> outcome, Throwable thrown) {
            // The caller never gets the response, so nobody else could close it.
            RetryingExchanges.this.sdk.close(outcome.response());
        }
    }

    /**
     * What one attempt came to: a response to hand over (a success, or a permanent failure that the SDK
     * turns into its exception), or a failure to decide about, its response already closed.
     *
     * @param <R> the SDK's response interface
     */
    static final class Outcome<R> {

        private final @Nullable R response;

        private final @Nullable RuntimeException failure;

        private Outcome(@Nullable R response, @Nullable RuntimeException failure) {
            this.response = response;
            this.failure = failure;
        }

        static <R> Outcome<R> success(R response) {
            return new Outcome<>(response, null);
        }

        /** A permanent failure whose response goes to the SDK, which throws its own exception for it. */
        static <R> Outcome<R> handOver(R response, RuntimeException failure) {
            return new Outcome<>(response, failure);
        }

        static <R> Outcome<R> failed(RuntimeException failure) {
            return new Outcome<>(null, failure);
        }

        boolean isSuccess() {
            return this.failure == null;
        }

        boolean handsOver() {
            return this.response != null;
        }

        R response() {
            return Objects.requireNonNull(this.response, "This outcome has no response to hand over");
        }

        @Nullable RuntimeException failure() {
            return this.failure;
        }
    }
}
