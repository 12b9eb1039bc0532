package dev.inference.retry.springai.google;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.genai.types.HttpRetryOptions;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.RetryAfter;
import dev.inference.failure.ShouldRetryHeader;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.springai.exchange.InterceptedAttempt;
import dev.inference.retry.springai.exchange.TypedFailures;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import okhttp3.Interceptor;
import okhttp3.MediaType;
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
 * <p>Trap: the SDK calls its client synchronously, for streams too, so waits block the calling thread,
 * as the SDK's own retries did; an interrupt or the shutdown signal ends them at once, with no further
 * request. A call timeout set on the SDK's client covers the waits. Thread-safe.
 */
final class RetryingGoogleGenAiInterceptor implements Interceptor {

    /** What the SDK's own retry interceptor, beneath this one, is told for each model exchange. */
    static final HttpRetryOptions ONE_ATTEMPT = HttpRetryOptions.builder().attempts(1).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Enough of an error body for its status and details; past this, it is not Gemini's. */
    private static final long ERROR_BODY_LIMIT = 64 * 1024;

    private final Retrier retrier;

    private final BlockingRetry blocking;

    private final Clock clock = Clock.systemUTC();

    /**
     * Creates the interceptor.
     *
     * @param retrier the decisions about every model exchange
     */
    RetryingGoogleGenAiInterceptor(Retrier retrier) {
        this.retrier = Objects.requireNonNull(retrier, "retrier must not be null");
        this.blocking = BlockingRetry.of(retrier);
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
        return InterceptedAttempt.call(this.blocking, operation, () -> attempt(chain, oneAttempt, operation));
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
     * Makes one attempt: returns a success or a permanent failure to hand over, or throws a failure to
     * decide about, its response already closed.
     */
    private InterceptedAttempt<Response> attempt(Chain chain, Request request, Operation operation) {
        Response response;
        try {
            response = chain.proceed(request);
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
            return (operation == Operation.STREAM) ? streamAttempt(response) : InterceptedAttempt.success(response);
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

    /** Reads a stream's first event and decides by it, handing the stream on whole. */
    private InterceptedAttempt<Response> streamAttempt(Response response) throws IOException {
        ResponseBody body = Objects.requireNonNull(response.body(), "A network response has a body");
        InputStream stream = body.byteStream();
        FirstSseEvent first = FirstSseEvent.read(stream, FirstSseEvent.DEFAULT_LIMIT);
        Response whole = response.newBuilder().body(replay(first.bytesRead(), stream, body.contentType())).build();
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
}
