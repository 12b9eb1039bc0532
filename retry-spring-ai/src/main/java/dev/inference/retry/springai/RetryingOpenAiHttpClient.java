package dev.inference.retry.springai;

import com.openai.core.RequestOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.SseException;
import dev.inference.client.CallContext;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryExecution;
import dev.inference.retry.ShutdownSignal;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAI SDK's HTTP client, with each exchange retried with the decisions of a {@link Retrier}:
 * the layer beneath the SDK's own retries (which must be off), its logging and its error handling.
 *
 * <p>One exchange is one request and its response. An attempt's outcome is:
 * <ul>
 * <li>a response with status 400 or more: a failure typed as {@link HttpStatusException}, with the
 * provider's wait from {@code retry-after-ms}, else {@code Retry-After};</li>
 * <li>an {@link OpenAIIoException} from the transport (connection refused or reset, timeout): a network
 * failure;</li>
 * <li>for a successful event stream ({@code text/event-stream}), its first event: an {@code error}
 * object there is the provider's failure, sent before any content, and is classified by its type or
 * code (rate limit, server error, overloaded: retryable; anything else: permanent). Only that first
 * event is read, and every byte read is handed on, so the SDK parses the stream as the provider sent
 * it;</li>
 * <li>anything else: success. The response is handed over untouched, and what happens once its content
 * has begun (a stream cut after its first event, say) is final: it reaches the caller through the SDK,
 * and no byte is ever sent twice.</li>
 * </ul>
 *
 * <p>Where each failure ends, and why here: the SDK turns responses into its exceptions in its own
 * layer, above this one, and a decorated HTTP client sees responses, not those exceptions. So:
 * <ul>
 * <li>a permanent status, or a permanent error as a stream's first event, is handed over as the
 * response itself, and the caller gets exactly what the SDK throws for it (such as
 * {@code BadRequestException});</li>
 * <li>when attempts run out, the exchange throws the {@link ExhaustedException} the retrier decided on.
 * Its cause is the last failure in the form the SDK throws it, built here with the SDK's own builders
 * from the same status, headers and error body ({@code RateLimitException},
 * {@code InternalServerException}, {@code UnexpectedStatusCodeException}, {@code SseException}), or
 * the transport's {@link OpenAIIoException}; each carries the typed failure that classified it as its
 * own cause. The SDK's layers above pass an exception from the HTTP client through unchanged (its
 * retries are off), so {@code ChatModel.call} throws the {@code ExhaustedException} itself, and a
 * stream signals it in a {@link java.util.concurrent.CompletionException}, as the SDK signals its own
 * failures;</li>
 * <li>a call ended during a wait fails with what the retrier decided: a {@link CancellationException},
 * a {@link dev.inference.failure.ShutdownException} or a
 * {@link dev.inference.failure.DeadlineExceededException}, the failure that caused the wait
 * suppressed.</li>
 * </ul>
 *
 * <p>Waits: {@link #execute} blocks its caller's thread, which an interrupt or the retrier's
 * {@link ShutdownSignal} wakes at once (an interrupt ends the call with a {@link CancellationException}
 * and the interrupt status restored). {@link #executeAsync} never blocks: a wait is a {@link RetryTimer}
 * task, and the next attempt starts from it. Cancelling the returned future, or cancelling the stream
 * call's context (see {@link StreamCalls}), ends a wait at once, cancels an attempt in flight, and makes
 * no further request. Reading a stream's first event blocks, as the SDK's own reading of it does, so
 * {@code executeAsync} reads it on the given stream reader executor, never on the transport's
 * dispatcher threads.
 *
 * <p>A request whose body cannot be sent twice (not {@linkplain HttpRequestBody#repeatable()
 * repeatable}) is passed through once, as the SDK's own retry would. Each retry carries
 * {@code X-Stainless-Retry-Count} with the number of retries so far when the request has that header.
 * Thread-safe; every call's state lives in the call.
 */
final class RetryingOpenAiHttpClient implements HttpClient {

    static final String RETRY_COUNT_HEADER = "X-Stainless-Retry-Count";

    private static final String EVENT_STREAM = "text/event-stream";

    private final HttpClient delegate;

    private final Retrier retrier;

    private final RetryTimer timer;

    private final Executor streamReader;

    private final StreamCalls streamCalls;

    private final Clock clock;

    /**
     * Creates the client.
     *
     * @param delegate the transport: the client the SDK would use, making one request per call
     * @param retrier the decisions
     * @param timer the timer of {@link #executeAsync}'s waits
     * @param streamReader where {@link #executeAsync} reads a stream's first event, which blocks until it
     *     arrives; such as the SDK's stream handler executor
     * @param streamCalls the contexts of stream calls that a client wrapper cancels
     */
    RetryingOpenAiHttpClient(HttpClient delegate, Retrier retrier, RetryTimer timer, Executor streamReader,
            StreamCalls streamCalls) {
        this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
        this.retrier = Objects.requireNonNull(retrier, "retrier must not be null");
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.streamReader = Objects.requireNonNull(streamReader, "streamReader must not be null");
        this.streamCalls = Objects.requireNonNull(streamCalls, "streamCalls must not be null");
        this.clock = Clock.systemUTC();
    }

    /**
     * Makes the exchange, retrying as the class documentation describes; blocks during waits.
     *
     * @return the response of the first attempt that succeeded, or of a permanent failure, untouched
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the thread was interrupted during a wait
     * @throws RuntimeException what the transport threw, when it is not retryable
     */
    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions requestOptions) {
        HttpRequest outgoing = withoutCallHeader(request);
        if (!isRepeatable(outgoing)) {
            return this.delegate.execute(outgoing, requestOptions);
        }
        Operation operation = operationOf(outgoing);
        if (this.retrier.needsExecutionFromFirstAttempt()) {
            return retryBlocking(outgoing, requestOptions, operation, null);
        }
        Outcome first = attemptBlocking(outgoing, requestOptions, 1);
        if (!first.isSuccess()) {
            return retryBlocking(outgoing, requestOptions, operation, first);
        }
        return succeeded(first.response(), null, operation);
    }

    /**
     * Starts the exchange, retrying as the class documentation describes, without blocking.
     *
     * @return a future of the response of the first attempt that succeeded, or of a permanent failure,
     *     untouched; or failed with the exception that ended the exchange. Cancelling it ends the
     *     exchange.
     */
    @Override
    public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions requestOptions) {
        Optional<String> callId = StreamCalls.idOf(request);
        HttpRequest outgoing = withoutCallHeader(request);
        if (!isRepeatable(outgoing)) {
            return this.delegate.executeAsync(outgoing, requestOptions);
        }
        CallContext context;
        if (callId.isPresent()) {
            Optional<CallContext> registered = this.streamCalls.contextOf(callId.get());
            if (registered.isEmpty()) {
                return CompletableFuture.failedFuture(
                        new CancellationException("The stream was closed before its exchange began"));
            }
            context = registered.get();
        }
        else {
            context = CallContext.cancellable();
        }
        return new AsyncExchange(this, outgoing, requestOptions, operationOf(outgoing), context).start();
    }

    /**
     * Closes the transport.
     */
    @Override
    public void close() {
        this.delegate.close();
    }

    Retrier retrier() {
        return this.retrier;
    }

    HttpClient delegate() {
        return this.delegate;
    }

    RetryTimer timer() {
        return this.timer;
    }

    Executor streamReader() {
        return this.streamReader;
    }

    private HttpResponse retryBlocking(HttpRequest request, RequestOptions requestOptions, Operation operation,
            @Nullable Outcome firstFailure) {
        RetryExecution execution = this.retrier.start(operation, CallContext.background());
        Outcome outcome = firstFailure;
        for (;;) {
            if (outcome != null) {
                RetryExecution.Decision decision = decide(execution, outcome);
                if (outcome.handsOver()) {
                    return outcome.response();
                }
                if (!decision.isRetry()) {
                    throw decision.failure();
                }
                pause(decision.delay(), execution);
                execution.beginNextAttempt();
            }
            for (Duration cooldown; !(cooldown = execution.cooldownBeforeAttempt()).isZero();) {
                pause(cooldown, execution);
                execution.endCooldownWait();
            }
            outcome = attemptBlocking(request, requestOptions, execution.attempt());
            if (outcome.isSuccess()) {
                return succeeded(outcome.response(), execution, operation);
            }
        }
    }

    /** Tells the execution of a failed attempt; an Error from a listener still closes the response. */
    static RetryExecution.Decision decide(RetryExecution execution, Outcome outcome) {
        try {
            return execution.failed(Objects.requireNonNull(outcome.failure()));
        }
        catch (Error ex) {
            outcome.discard();
            throw ex;
        }
    }

    private Outcome attemptBlocking(HttpRequest request, RequestOptions requestOptions, int attempt) {
        HttpResponse response;
        try {
            response = this.delegate.execute(forAttempt(request, attempt), requestOptions);
        }
        catch (RuntimeException ex) {
            // An interrupt during the attempt shows as an I/O failure: it is the caller giving up, not the network.
            boolean interrupted = Thread.currentThread().isInterrupted();
            return Outcome.failed(interrupted ? ex : translate(ex));
        }
        Outcome outcome = classify(response);
        return (outcome != null) ? outcome : readFirstEvent(response, CallContext.background());
    }

    private HttpResponse succeeded(HttpResponse response, @Nullable RetryExecution execution, Operation operation) {
        try {
            if (execution == null) {
                this.retrier.firstAttemptSucceeded(operation);
            }
            else {
                execution.succeeded();
            }
        }
        catch (Error ex) {
            // The caller never gets the response, so nobody else could close it.
            response.close();
            throw ex;
        }
        return response;
    }

    private void pause(Duration delay, RetryExecution execution) {
        try {
            sleep(delay);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw execution.interrupted(ex);
        }
    }

    /** Parks until the delay has passed or the shutdown signal fires; an interrupt ends it. */
    private void sleep(Duration delay) throws InterruptedException {
        Optional<ShutdownSignal> shutdown = this.retrier.shutdownSignal();
        if (shutdown.isPresent()) {
            shutdown.get().await(delay, CallContext.background());
        }
        else {
            CallContext.background().await(delay);
        }
    }

    /**
     * Classifies a response by its status. Returns {@code null} for a successful event stream, whose
     * first event decides (see {@link #readFirstEvent}).
     */
    @Nullable Outcome classify(HttpResponse response) {
        int status = response.statusCode();
        if (status < 400) {
            return (status >= 200 && status <= 299 && isEventStream(response)) ? null : Outcome.success(response);
        }
        HttpStatusException typed = OpenAiFailures.statusFailure(response, this.clock);
        if (!Classification.isRetryable(typed)) {
            return Outcome.handOver(response, typed);
        }
        try {
            return Outcome.failed(OpenAiFailures.retryableStatusException(response, typed));
        }
        finally {
            response.close();
        }
    }

    /**
     * Reads a successful stream's first event, and classifies it. Blocks until it has arrived; closing
     * the response (as a cancellation of {@code context} does) ends the read.
     */
    Outcome readFirstEvent(HttpResponse response, CallContext context) {
        InputStream body;
        FirstSseEvent first;
        CallContext.Registration closeOnCancel = context.onCancel(response::close);
        try {
            body = response.body();
            first = FirstSseEvent.read(body, FirstSseEvent.DEFAULT_LIMIT);
        }
        catch (IOException ex) {
            response.close();
            // What the SDK throws when reading a stream fails; nothing of it has reached the caller yet.
            return Outcome.failed(OpenAiFailures.networkFailure(new OpenAIIoException("Stream failed", ex)));
        }
        catch (RuntimeException ex) {
            response.close();
            return Outcome.failed(translate(ex));
        }
        finally {
            closeOnCancel.close();
        }
        HttpResponse whole = new PeekedResponse(response, body, first.bytesRead());
        String data = first.data();
        Optional<SseException> inBand = (data != null) ? OpenAiFailures.inBandFailure(data, response) : Optional.empty();
        if (inBand.isEmpty()) {
            return Outcome.success(whole);
        }
        if (!Classification.isRetryable(inBand.get())) {
            return Outcome.handOver(whole, inBand.get());
        }
        whole.close();
        return Outcome.failed(inBand.get());
    }

    /** An exception from the transport, as the retry decisions see it. */
    static RuntimeException translate(RuntimeException thrown) {
        return (thrown instanceof OpenAIIoException io) ? OpenAiFailures.networkFailure(io) : thrown;
    }

    static HttpRequest forAttempt(HttpRequest request, int attempt) {
        if (attempt == 1 || request.headers().values(RETRY_COUNT_HEADER).isEmpty()) {
            return request;
        }
        return request.toBuilder().replaceHeaders(RETRY_COUNT_HEADER, Integer.toString(attempt - 1)).build();
    }

    private static HttpRequest withoutCallHeader(HttpRequest request) {
        return request.headers().values(StreamCalls.HEADER).isEmpty() ? request
                : request.toBuilder().removeHeaders(StreamCalls.HEADER).build();
    }

    private static boolean isRepeatable(HttpRequest request) {
        HttpRequestBody body = request.body();
        return body == null || body.repeatable();
    }

    private static Operation operationOf(HttpRequest request) {
        for (String accept : request.headers().values("Accept")) {
            if (accept.contains(EVENT_STREAM)) {
                return Operation.STREAM;
            }
        }
        return Operation.INVOKE;
    }

    private static boolean isEventStream(HttpResponse response) {
        for (String type : response.headers().values("Content-Type")) {
            if (type.toLowerCase(Locale.ROOT).startsWith(EVENT_STREAM)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "RetryingOpenAiHttpClient[retrier=" + this.retrier + ", delegate=" + this.delegate + "]";
    }

    /**
     * What one attempt came to: a response to hand over (a success, or a permanent failure that the SDK
     * turns into its exception), or a failure to decide about, its response already closed.
     */
    static final class Outcome {

        private final @Nullable HttpResponse response;

        private final @Nullable RuntimeException failure;

        private Outcome(@Nullable HttpResponse response, @Nullable RuntimeException failure) {
            this.response = response;
            this.failure = failure;
        }

        static Outcome success(HttpResponse response) {
            return new Outcome(response, null);
        }

        /** A permanent failure whose response goes to the SDK, which throws its own exception for it. */
        static Outcome handOver(HttpResponse response, RuntimeException failure) {
            return new Outcome(response, failure);
        }

        static Outcome failed(RuntimeException failure) {
            return new Outcome(null, failure);
        }

        boolean isSuccess() {
            return this.failure == null;
        }

        boolean handsOver() {
            return this.response != null;
        }

        HttpResponse response() {
            return Objects.requireNonNull(this.response, "This outcome has no response to hand over");
        }

        @Nullable RuntimeException failure() {
            return this.failure;
        }

        /** Closes the response of an outcome that will not be handed over after all. */
        void discard() {
            if (this.response != null) {
                this.response.close();
            }
        }
    }
}
