package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.time.ShutdownSignal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.util.StreamUtils;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.ResponseErrorHandler;

/**
 * Retries each exchange of a {@code RestClient} with the decisions of a {@link Retrier}: the innermost
 * interceptor of a client whose one caller is a model's blocking {@code call}, so its listeners hear
 * {@link Operation#INVOKE} attempts. The order of a call's decisions is
 * {@link dev.inference.retry.RetryExecution}'s.
 *
 * <p>An attempt is one request (the client buffers the body, so every attempt sends the same bytes) and
 * its response: an {@link IOException} is a network failure, unless the thread was interrupted; a status
 * of 400 or more an {@link HttpStatusException} (see {@link TypedFailures#status}); anything else a
 * success, returned with its body read within the attempt ({@link UnaryBody}), so that a body that
 * breaks before its end is a network failure too. The client turns responses into exceptions after its
 * interceptors, so a permanent failure is handed over as it came and the caller gets what the client
 * throws today; a retryable one is made here as the client would make it (its
 * {@link ResponseErrorHandler}'s exception, or a {@link ResourceAccessException}), with the typed
 * failure as its cause, and on exhaustion is the cause of the {@link ExhaustedException}.
 *
 * <p>With an {@code attempt-timeout}, an attempt still running when it passes is abandoned by
 * interrupting the calling thread ({@link InterruptOnCancel}) and fails with an
 * {@link AttemptTimeoutException}, retried.
 *
 * <p>Trap: waits block the calling thread, which an interrupt or the {@link ShutdownSignal} wakes at
 * once with no further request. Thread-safe; every call's state lives in the call.
 */
public final class RetryingRequestInterceptor implements ClientHttpRequestInterceptor {

    private final Retrier retrier;

    private final BlockingRetry blocking;

    private final ResponseErrorHandler errorHandler;

    private final Clock clock;

    /**
     * Creates the interceptor.
     *
     * @param retrier the decisions
     * @param errorHandler the handler with which the client turns an error status into its exception
     */
    public RetryingRequestInterceptor(Retrier retrier, ResponseErrorHandler errorHandler) {
        this.retrier = Objects.requireNonNull(retrier, "retrier must not be null");
        this.blocking = BlockingRetry.of(retrier);
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler must not be null");
        this.clock = Clock.systemUTC();
    }

    /**
     * Makes the exchange, retrying as the class documentation describes; blocks during waits.
     *
     * @return the response of the first attempt that succeeded, or of a permanent failure, untouched
     * @throws IOException what the transport threw when the calling thread was interrupted
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the thread was interrupted during a wait
     */
    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        Optional<Duration> timeout = this.retrier.timeouts().attempt();
        Supplier<InterceptedAttempt<ClientHttpResponse>> oneOf = timeout.isEmpty()
                ? () -> attempt(request, body, execution)
                : () -> timedAttempt(request, body, execution, timeout.get());
        return InterceptedAttempt.call(this.blocking, Operation.INVOKE, oneOf);
    }

    /**
     * Makes one attempt bounded by its timeout, which interrupts the calling thread if the exchange, its
     * body included, is still running; the attempt then fails with an {@link AttemptTimeoutException}.
     */
    private InterceptedAttempt<ClientHttpResponse> timedAttempt(HttpRequest request, byte[] body,
            ClientHttpRequestExecution execution, Duration timeout) {
        try (AttemptScope scope = CallContext.background().startAttempt(timeout, this.retrier.timer())) {
            InterceptedAttempt<ClientHttpResponse> result;
            try (InterruptOnCancel interrupt = InterruptOnCancel.of(scope.context())) {
                result = attempt(request, body, execution);
            }
            catch (RuntimeException ex) {
                throw scope.failureFor(ex);
            }
            RuntimeException failure = result.failure();
            if (result.transportFailure() != null && failure != null && scope.timedOut()) {
                // The interrupt was the timeout's, not the caller's.
                throw scope.failureFor(failure);
            }
            return result;
        }
    }

    /**
     * Makes one attempt: returns a success or a permanent failure to hand over, or throws a failure to
     * decide about, its response already closed.
     */
    private InterceptedAttempt<ClientHttpResponse> attempt(HttpRequest request, byte[] body,
            ClientHttpRequestExecution execution) {
        ClientHttpResponse response;
        try {
            response = execution.execute(request, body);
        }
        catch (IOException ex) {
            return transportFailed(request, ex);
        }
        try {
            int status = response.getStatusCode().value();
            if (status < 400) {
                return InterceptedAttempt.success(BufferedResponse.read(response));
            }
            HttpStatusException typed = TypedFailures.status(status, response.getHeaders()::getFirst, this.clock);
            if (!Classification.isRetryable(typed)) {
                return InterceptedAttempt.handOver(response, typed);
            }
            try (response) {
                RuntimeException thrown = clientException(request, response);
                throw (thrown != null) ? TypedFailures.withTypedCause(thrown, typed) : typed;
            }
        }
        catch (IOException ex) {
            response.close();
            return transportFailed(request, ex);
        }
    }

    /**
     * An attempt whose exchange failed with an I/O error: a network failure to decide about, thrown; or,
     * when the thread was interrupted, which shows as an I/O failure too, the caller giving up, handed
     * over for the client to wrap as it does.
     */
    private static InterceptedAttempt<ClientHttpResponse> transportFailed(HttpRequest request, IOException ex) {
        ResourceAccessException failure = resourceAccessException(request, ex);
        if (Thread.currentThread().isInterrupted()) {
            return InterceptedAttempt.handOver(ex, failure);
        }
        throw TypedFailures.withTypedCause(failure, TypedFailures.network(ex));
    }

    /**
     * Returns what the client's error handler throws for a response; the handler reads a copy of it.
     * A handler that throws nothing for it leaves the response to the client's own default handler,
     * whose exception cannot be made here: then {@code null}, and the typed failure stands for it.
     */
    private @Nullable RuntimeException clientException(HttpRequest request, ClientHttpResponse response)
            throws IOException {
        ClientHttpResponse copy = BufferedResponse.copyOf(response);
        try {
            if (this.errorHandler.hasError(copy)) {
                this.errorHandler.handleError(request.getURI(), request.getMethod(), copy);
            }
        }
        catch (RuntimeException ex) {
            return ex;
        }
        catch (IOException ex) {
            // As the client reports an I/O failure of its status handler.
            return new UncheckedIOException(ex);
        }
        return null;
    }

    /** The exception the client wraps an I/O failure in, with the same message. */
    private static ResourceAccessException resourceAccessException(HttpRequest request, IOException ex) {
        String url = request.getURI().toString();
        int query = url.indexOf('?');
        return new ResourceAccessException("I/O error on " + request.getMethod().name() + " request for \""
                + ((query >= 0) ? url.substring(0, query) : url) + "\": " + ex.getMessage());
    }

    @Override
    public String toString() {
        return "RetryingRequestInterceptor[retrier=" + this.retrier + "]";
    }

    /**
     * A response's status and headers with its body read into memory, up to {@link UnaryBody#LIMIT} (the
     * rest, if any, still to be read from the original), or a copy of an error response for its handler.
     */
    private static final class BufferedResponse implements ClientHttpResponse {

        private final ClientHttpResponse original;

        private final Supplier<InputStream> body;

        private final boolean ownsOriginal;

        private BufferedResponse(ClientHttpResponse original, Supplier<InputStream> body, boolean ownsOriginal) {
            this.original = original;
            this.body = body;
            this.ownsOriginal = ownsOriginal;
        }

        /**
         * Reads a response's body within its attempt; closing the result closes the response. An I/O
         * failure that the client's body reports unchecked (as the blocking bridge of a reactive client
         * does) is thrown as the {@link IOException} it carries; the caller closes the response then.
         */
        static BufferedResponse read(ClientHttpResponse response) throws IOException {
            InputStream body = response.getBody();
            try {
                long announced = UnaryBody.announcedLength(response.getHeaders().getOrEmpty(HttpHeaders.CONTENT_LENGTH));
                InputStream whole = PeekedResponse.body(UnaryBody.read(body, announced), body);
                return new BufferedResponse(response, () -> whole, true);
            }
            catch (RuntimeException ex) {
                if (ex.getCause() instanceof IOException io) {
                    throw io;
                }
                response.close();
                throw ex;
            }
        }

        /**
         * A copy of an error response for its handler to read, as often as it reads it; closing it leaves
         * the response to its owner.
         */
        static BufferedResponse copyOf(ClientHttpResponse response) throws IOException {
            byte[] body = StreamUtils.copyToByteArray(response.getBody());
            return new BufferedResponse(response, () -> new ByteArrayInputStream(body), false);
        }

        @Override
        public HttpStatusCode getStatusCode() throws IOException {
            return this.original.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
            return this.original.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.original.getHeaders();
        }

        @Override
        public InputStream getBody() {
            return this.body.get();
        }

        @Override
        public void close() {
            if (this.ownsOriginal) {
                this.original.close();
            }
        }
    }
}
