package dev.inference.retry.springai.google;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.genai.types.HttpRetryOptions;
import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.RetryAfter;
import dev.inference.failure.ShouldRetryHeader;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.springai.exchange.IdleWatchedStream;
import dev.inference.retry.springai.exchange.InterceptedAttempt;
import dev.inference.retry.springai.exchange.TypedFailures;
import dev.inference.retry.springai.exchange.UnaryBody;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * Retries each model exchange of a Google GenAI SDK client ({@code :generateContent}, an
 * {@link Operation#INVOKE}, and {@code :streamGenerateContent}, a {@link Operation#STREAM}) with the
 * decisions of a {@link Retrier}: an OkHttp interceptor of the client's own, ahead of the SDK's retry
 * interceptor, which it tells to make one attempt per exchange. Every other request (caches, files) goes
 * through untouched. The order of a call's decisions is {@link dev.inference.retry.RetryExecution}'s.
 *
 * <p>An attempt is one request (the SDK's request body is a string, sent again as it was): an
 * {@link IOException} is a network failure, unless the thread was interrupted; a status of 400 or more
 * is classified as {@link GoogleFailures} says; a stream's first event, read before anything is handed
 * over (and handed over with it), is classified the same way when it is an error; anything else is a
 * success. A permanent failure is handed over as it came, so the SDK throws what it throws today; a
 * retryable one is the SDK's exception made from the same response, and on exhaustion the cause of the
 * {@link ExhaustedException}, which the SDK passes up unchanged.
 *
 * <p>Timeouts (SPEC §11): an attempt with an {@code attempt-timeout} (a unary exchange, read whole within
 * it) or a {@code first-token-timeout} (a stream, up to its first event) is made as an OkHttp call of
 * its own on the caller's thread, which the timeout cancels from the retrier's timer, and then fails
 * with an {@link AttemptTimeoutException}: a call cancelled once stays cancelled, so the SDK's call
 * cannot carry more than one abandoned attempt. A stream with a {@code stream-idle-timeout} is ended
 * with a {@link StreamStalledException} once its events stop ({@link IdleWatchedStream}).
 *
 * <p>Trap: the SDK calls its client synchronously, for streams too, so waits block the calling thread,
 * as the SDK's own retries did; an interrupt or the shutdown signal ends them at once, with no further
 * request. A call timeout set on the SDK's client covers the waits, and each timed attempt on its own.
 * Thread-safe.
 */
final class RetryingGoogleGenAiInterceptor implements Interceptor {

    /** What the SDK's own retry interceptor, beneath this one, is told for each model exchange. */
    static final HttpRetryOptions ONE_ATTEMPT = HttpRetryOptions.builder().attempts(1).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Enough of an error body for its status and details; past this, it is not Gemini's. */
    private static final long ERROR_BODY_LIMIT = 64 * 1024;

    private final Retrier retrier;

    private final BlockingRetry blocking;

    private final OkHttpClient attempts;

    private final Clock clock = Clock.systemUTC();

    /**
     * Creates the interceptor.
     *
     * @param retrier the decisions about every model exchange
     * @param attempts the client that makes a timed attempt as a call of its own: the SDK's client without
     *     this interceptor
     */
    RetryingGoogleGenAiInterceptor(Retrier retrier, OkHttpClient attempts) {
        this.retrier = Objects.requireNonNull(retrier, "retrier must not be null");
        this.blocking = BlockingRetry.of(retrier);
        this.attempts = Objects.requireNonNull(attempts, "attempts must not be null");
    }

    /**
     * Makes the exchange, retrying a model exchange as the class documentation describes; blocks during
     * waits.
     *
     * @return the response of the first attempt that succeeded, or of a permanent failure
     * @throws IOException what the transport threw when the calling thread was interrupted
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the thread was interrupted during a wait
     */
    @Override
    public Response intercept(Chain chain) throws IOException {
        Request request = chain.request();
        Operation operation = operationOf(request);
        if (operation == null) {
            return chain.proceed(request);
        }
        Request oneAttempt = request.newBuilder().tag(HttpRetryOptions.class, ONE_ATTEMPT).build();
        Optional<Duration> timeout = (operation == Operation.STREAM) ? this.retrier.timeouts().firstToken()
                : this.retrier.timeouts().attempt();
        Supplier<InterceptedAttempt<Response>> oneOf = timeout.isEmpty()
                ? () -> attempt(chain.call(), () -> chain.proceed(oneAttempt), operation, false)
                : () -> timedAttempt(oneAttempt, operation, timeout.get());
        return InterceptedAttempt.call(this.blocking, operation, oneOf);
    }

    /**
     * Makes one attempt bounded by its timeout, as a call of its own that the timeout cancels; a unary
     * response is read whole within it.
     */
    private InterceptedAttempt<Response> timedAttempt(Request request, Operation operation, Duration timeout) {
        try (AttemptScope scope = CallContext.background().startAttempt(timeout, this.retrier.timer())) {
            Call call = this.attempts.newCall(request);
            try (CallContext.Registration cancel = scope.context().onCancel(call::cancel)) {
                return attempt(call, call::execute, operation, true);
            }
            catch (RuntimeException ex) {
                throw scope.failureFor(ex);
            }
        }
    }

    /** The operation of a model exchange, or {@code null} for any other request. */
    static @Nullable Operation operationOf(Request request) {
        String path = request.url().encodedPath();
        if (path.endsWith(":generateContent")) {
            return Operation.INVOKE;
        }
        return path.endsWith(":streamGenerateContent") ? Operation.STREAM : null;
    }

    /**
     * Makes one attempt on a call: returns a success or a permanent failure to hand over, or throws a
     * failure to decide about, its response already closed.
     */
    private InterceptedAttempt<Response> attempt(Call call, Exchange exchange, Operation operation,
            boolean readWhole) {
        Response response;
        try {
            response = exchange.send();
        }
        catch (IOException ex) {
            // An interrupt shows as an I/O failure, but it is the caller giving up, not the network.
            if (Thread.currentThread().isInterrupted()) {
                return InterceptedAttempt.handOver(ex, TypedFailures.network(ex));
            }
            throw GoogleFailures.networkFailure(ex);
        }
        try {
            if (response.code() >= 400) {
                return statusAttempt(response);
            }
            if (operation == Operation.STREAM) {
                return streamAttempt(call, response);
            }
            return InterceptedAttempt.success(readWhole ? wholeRead(response) : response);
        }
        catch (IOException ex) {
            response.close();
            throw GoogleFailures.networkFailure(ex);
        }
    }

    private InterceptedAttempt<Response> statusAttempt(Response response) throws IOException {
        GoogleFailures.Error error = GoogleFailures.Error.parse(response.peekBody(ERROR_BODY_LIMIT).bytes());
        HttpStatusException typed = GoogleFailures.typed(response.code(), error,
                RetryAfter.fromHeaders(response::header, this.clock), ShouldRetryHeader.refusesRetry(response::header));
        if (!Classification.isRetryable(typed)) {
            return InterceptedAttempt.handOver(response, typed);
        }
        try (response) {
            throw GoogleFailures.statusException(response, typed);
        }
    }

    /** A unary response with its body read within the attempt. */
    private static Response wholeRead(Response response) throws IOException {
        ResponseBody body = Objects.requireNonNull(response.body(), "A network response has a body");
        InputStream stream = body.byteStream();
        byte[] read = UnaryBody.read(stream, body.contentLength());
        return response.newBuilder().body(replay(read, stream, body.contentType())).build();
    }

    /**
     * Reads a stream's first event and decides by it, handing the stream on whole, watched for stalls
     * past the retrier's {@code stream-idle-timeout} (a stall cancels the call).
     */
    private InterceptedAttempt<Response> streamAttempt(Call call, Response response) throws IOException {
        ResponseBody body = Objects.requireNonNull(response.body(), "A network response has a body");
        InputStream stream = body.byteStream();
        FirstSseEvent first = FirstSseEvent.read(stream, FirstSseEvent.DEFAULT_LIMIT);
        Optional<Duration> idle = this.retrier.timeouts().streamIdle();
        InputStream rest = idle.isEmpty() ? stream
                : IdleWatchedStream.watch(first.bytesRead(), stream, idle.get(), this.retrier, call::cancel);
        Response whole = response.newBuilder().body(replay(first.bytesRead(), rest, body.contentType())).build();
        JsonNode event = json(first.data());
        if (!GoogleFailures.Error.isError(event)) {
            return InterceptedAttempt.success(whole);
        }
        GoogleFailures.Error error = GoogleFailures.Error.of(event);
        int code = (error.code() != null) ? error.code() : ProviderErrorTypes.status(error.status()).orElse(400);
        HttpStatusException typed = GoogleFailures.typed(code, error, Optional.empty(), false);
        if (!Classification.isRetryable(typed)) {
            return InterceptedAttempt.handOver(whole, typed);
        }
        try (whole) {
            throw GoogleFailures.inBandException(Objects.requireNonNull(event), code, typed);
        }
    }

    private static @Nullable JsonNode json(@Nullable String data) {
        if (data == null) {
            return null;
        }
        try {
            return JSON.readTree(data);
        }
        catch (IOException | RuntimeException notJson) {
            return null;
        }
    }

    /** A body that gives the bytes already read, then the rest of the stream; closing it closes the stream. */
    private static ResponseBody replay(byte[] read, InputStream rest, @Nullable MediaType contentType) {
        InputStream whole = new SequenceInputStream(new ByteArrayInputStream(read), rest);
        return ResponseBody.create(Okio.buffer(Okio.source(whole)), contentType, -1);
    }

    @Override
    public String toString() {
        return "RetryingGoogleGenAiInterceptor[retrier=" + this.retrier + "]";
    }

    /** Sends an attempt's request and returns its response. */
    @FunctionalInterface
    private interface Exchange {

        Response send() throws IOException;
    }
}
