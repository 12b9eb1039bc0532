package dev.inference.sample.openai;

import dev.inference.client.Authorizer;
import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.RateLimitHeaders;
import dev.inference.failure.RetryAfter;
import dev.inference.failure.ShouldRetryHeader;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InferenceClient} for an OpenAI-compatible provider: each call is one
 * {@code POST {baseUrl}/v1/chat/completions} sent through the JDK's {@link HttpClient}, its answer
 * read whole or, for {@link #stream}, as server-sent events. It makes exactly one attempt per call;
 * retrying is a decorator's job.
 *
 * <p>Its contract is what a transport owes the retry: every failure typed ({@link NetworkException}
 * for the transport and unreadable bodies, {@link HttpStatusException} with the provider's delay for
 * a status, a {@link ProviderErrorException} for an error object sent with a 200, a
 * {@link QuotaExceededException} for a used-up quota), a stream established at its first event (a
 * failure before it is a {@link HalfOpenStreamException}), the context's cancellation and deadline
 * aborting the exchange, and the rate-limit headers read into {@code rateLimitedFor()}. The whole list,
 * case by case: {@code docs/sample-app.md}, "The sample's HTTP client, as a model for yours".
 *
 * <p>Traps: messages never hold the request body, the credentials or the response body, and a header
 * from the {@link Authorizer} that cannot be sent fails the call without naming its value; no stream
 * line may exceed 1 MiB. Instances are immutable and thread-safe.
 */
public final class OpenAiCompatibleClient implements InferenceClient {

    /** The path of the chat-completions operation, appended to the base URL. */
    public static final String CHAT_COMPLETIONS_PATH = "/v1/chat/completions";

    /** A header name as RFC 9110 section 5.6.2 defines a token. */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /** Enough for any provider's error object; a longer body is cut off unread. */
    private static final int ERROR_BODY_LIMIT = 16 * 1024;

    /** The cancellation's message when the caller's thread is interrupted while a body is read. */
    static final String INTERRUPTED_READING_RESPONSE = "Interrupted while reading the provider's response";

    private final URI endpoint;

    private final HttpClient http;

    private final Clock clock;

    private final @Nullable Duration responseTimeout;

    private final ChatCompletions json = new ChatCompletions();

    private OpenAiCompatibleClient(Builder builder) {
        this.endpoint = builder.endpoint;
        this.http = builder.http;
        this.clock = builder.clock;
        this.responseTimeout = builder.responseTimeout;
    }

    /**
     * Starts building a client.
     *
     * @param baseUrl the provider's base URL, such as {@code http://127.0.0.1:8081}; the
     *     chat-completions path is appended to it
     * @return a builder with an HTTP/1.1 {@link HttpClient}, the system UTC clock and no response
     *     timeout other than the call's deadline
     * @throws NullPointerException if {@code baseUrl} is {@code null}
     * @throws IllegalArgumentException if {@code baseUrl} is not an absolute {@code http} or
     *     {@code https} URI without query or fragment
     */
    public static Builder builder(URI baseUrl) {
        return new Builder(baseUrl);
    }

    /**
     * Returns the URI every request is sent to.
     *
     * @return the base URL followed by {@value #CHAT_COMPLETIONS_PATH}
     */
    public URI endpoint() {
        return this.endpoint;
    }

    /**
     * Performs one chat completion.
     *
     * @return the text of {@code choices[0].message.content}, with {@code attempts() == 0}
     * @throws RuntimeException a {@link NetworkException}, {@link HttpStatusException},
     *     {@link CancellationException} or {@link DeadlineExceededException}, as described in the
     *     class documentation
     */
    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        Objects.requireNonNull(request, "request must not be null");
        try (AttemptGuard guard = AttemptGuard.start(context)) {
            HttpResponse<InputStream> response = exchange(request, false, context.authorizer(), guard);
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readAllBytes();
            }
            catch (IOException ex) {
                throw guard.abortFailure(ex)
                        .or(() -> AttemptGuard.interruption(ex, INTERRUPTED_READING_RESPONSE))
                        .orElseGet(() -> new NetworkException("The connection was cut before the response was complete",
                                ex));
            }
            // An abort closes the body, which then reads as a short but clean end.
            guard.abortFailure(null).ifPresent((aborted) -> {
                throw aborted;
            });
            InferenceResponse answer = InferenceResponse.of(this.json.content(body));
            return rateLimitedFor(response.headers()).map(answer::withRateLimitedFor).orElse(answer);
        }
    }

    /**
     * Opens a streamed chat completion and reads it up to its first event.
     *
     * @return the open reader; the caller must close it
     * @throws HalfOpenStreamException if the status was 2xx but reading the first event failed
     * @throws RuntimeException a {@link NetworkException}, {@link HttpStatusException},
     *     {@link CancellationException} or {@link DeadlineExceededException}, as described in the
     *     class documentation
     */
    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        Objects.requireNonNull(request, "request must not be null");
        AttemptGuard guard = AttemptGuard.start(context);
        SseStreamReader reader;
        try {
            HttpResponse<InputStream> response = exchange(request, true, context.authorizer(), guard);
            reader = new SseStreamReader(response.body(), guard, this.json, rateLimitedFor(response.headers()).orElse(null));
        }
        catch (RuntimeException | Error ex) {
            guard.close();
            throw ex;
        }
        try {
            reader.hasNext();
        }
        catch (RuntimeException ex) {
            throw new HalfOpenStreamException(reader, ex);
        }
        catch (Error error) {
            // The reader has ended itself; closing it again is harmless and keeps this method whole.
            reader.close();
            throw error;
        }
        return reader;
    }

    /** Sends the request and returns the 2xx response, whose body the guard closes on abort. */
    private HttpResponse<InputStream> exchange(InferenceRequest request, boolean stream, Authorizer authorizer,
            AttemptGuard guard) {
        HttpRequest httpRequest = httpRequest(request, stream, authorizer);
        // Each body is closed on abort from the moment it exists: a cancel that races with the
        // response's headers cancels the future but not the exchange, whose body would then hold
        // its connection open with no one left to read or close it.
        CompletableFuture<HttpResponse<InputStream>> inFlight = this.http.sendAsync(httpRequest, (info) -> {
            InterruptibleBody body = new InterruptibleBody();
            guard.onAbort(body::close);
            return body;
        });
        guard.onAbort(() -> inFlight.cancel(true));
        HttpResponse<InputStream> response = await(inFlight, guard);
        guard.onAbort(() -> closeQuietly(response.body()));
        if (response.statusCode() / 100 != 2) {
            RuntimeException status = statusFailure(response);
            // An abort closes the error body, which then reads as cut short: the caller gave up,
            // and a retryable status in its place would be retried or end in exhaustion instead.
            throw guard.abortFailure(status).orElse(status);
        }
        return response;
    }

    private HttpRequest httpRequest(InferenceRequest request, boolean stream, Authorizer authorizer) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(this.endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", stream ? "text/event-stream" : "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(this.json.requestBody(request, stream)));
        if (this.responseTimeout != null) {
            builder.timeout(this.responseTimeout);
        }
        Map<String, String> credentials = Objects.requireNonNull(authorizer.authorize(),
                "The context's Authorizer returned null instead of a map of headers");
        credentials.forEach((name, value) -> setCredential(builder, name, value));
        return builder.build();
    }

    /**
     * Sets one header from the authorizer. The JDK quotes a rejected name or value in its message,
     * and here either may be a credential (a key with a stray line break, a whole
     * {@code "Authorization: Bearer ..."} line given as the name), so its failure is replaced by one
     * that shows neither, and is not attached as the cause.
     */
    private static void setCredential(HttpRequest.Builder builder, String name, String value) {
        try {
            builder.setHeader(name, value);
        }
        catch (IllegalArgumentException ex) {
            if (!HEADER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("The context's Authorizer supplied a header name that is not an "
                        + "HTTP token; the name is not shown since it may hold a credential");
            }
            if (value.chars().anyMatch((c) -> (c < 0x20 && c != '\t') || c == 0x7f)) {
                throw new IllegalArgumentException("The context's Authorizer supplied a value for the header " + name
                        + " that HTTP cannot carry (control characters such as line breaks are not allowed); the "
                        + "value is not shown since it may be a credential");
            }
            // A valid name the client refuses to set, such as Host: the JDK names only the header.
            throw new IllegalArgumentException("The context's Authorizer supplied the header " + name
                    + ", which the HTTP client does not let a request set", ex);
        }
    }

    // The thenAccept callback is registered for its effect: the future it returns is not needed.
    @SuppressWarnings("FutureReturnValueIgnored")
    private HttpResponse<InputStream> await(CompletableFuture<HttpResponse<InputStream>> inFlight,
            AttemptGuard guard) {
        try {
            return inFlight.get();
        }
        catch (CancellationException ex) {
            throw guard.abortFailure(ex).orElseThrow(() -> ex);
        }
        catch (InterruptedException ex) {
            inFlight.cancel(true);
            // The response may have arrived just as the interrupt did, too late to be cancelled:
            // close it, or it holds its connection open for ever.
            inFlight.thenAccept((response) -> closeQuietly(response.body()));
            Thread.currentThread().interrupt();
            CancellationException cancelled = new CancellationException(
                    "Interrupted while waiting for the provider");
            cancelled.initCause(ex);
            throw cancelled;
        }
        catch (ExecutionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            if (cause instanceof Error error) {
                throw error;
            }
            throw guard.abortFailure(cause).orElseGet(() -> networkFailure(cause));
        }
    }

    private RuntimeException networkFailure(Throwable cause) {
        if (cause instanceof HttpConnectTimeoutException) {
            return new NetworkException("Connecting to the provider timed out", cause);
        }
        if (cause instanceof HttpTimeoutException) {
            return new NetworkException("The provider sent no response within " + this.responseTimeout, cause);
        }
        if (cause instanceof ConnectException) {
            return new NetworkException("The provider refused the connection", cause);
        }
        if (cause instanceof IOException) {
            return new NetworkException("The connection failed before the provider's response arrived", cause);
        }
        // Not the transport: an IllegalArgumentException from the request, say. Unchanged.
        return (cause instanceof RuntimeException runtime) ? runtime
                : new NetworkException("The request failed before the provider's response arrived", cause);
    }

    private RuntimeException statusFailure(HttpResponse<InputStream> response) {
        int status = response.statusCode();
        HttpHeaders headers = response.headers();
        Duration retryAfter = RetryAfter.fromHeaders((name) -> headers.firstValue(name).orElse(null), this.clock)
                .orElse(null);
        byte[] errorBody;
        try (InputStream in = response.body()) {
            errorBody = in.readNBytes(ERROR_BODY_LIMIT);
        }
        catch (IOException ex) {
            // An interrupt is the caller's cancellation, whatever the status; a body lost in
            // transit changes nothing about the status otherwise.
            AttemptGuard.interruption(ex, INTERRUPTED_READING_RESPONSE).ifPresent((cancelled) -> {
                throw cancelled;
            });
            errorBody = new byte[0];
        }
        // A used-up quota answers 429 like a rate limit, but no wait mends it.
        Optional<QuotaExceededException> quota = (status == 429) ? this.json.quotaExceeded(status, errorBody)
                : Optional.empty();
        if (quota.isPresent()) {
            return quota.get();
        }
        String code = this.json.errorCode(errorBody).map((identifier) -> " (" + identifier + ")").orElse("");
        return new HttpStatusException(status, "The provider answered " + status + code + " to POST "
                + CHAT_COMPLETIONS_PATH, retryAfter, rateLimitedFor(headers).orElse(null),
                ShouldRetryHeader.refusesRetry((name) -> headers.firstValue(name).orElse(null)));
    }

    /** What OpenAI's rate-limit headers say, which every answer carries, failed or not. */
    private Optional<Duration> rateLimitedFor(HttpHeaders headers) {
        return RateLimitHeaders.OPENAI.exhaustedFor((name) -> headers.firstValue(name).orElse(null), this.clock);
    }

    private static void closeQuietly(InputStream body) {
        try {
            body.close();
        }
        catch (IOException ex) {
            // Aborting: the body is abandoned either way.
        }
    }

    @Override
    public String toString() {
        return "OpenAiCompatibleClient[endpoint=" + this.endpoint + "]";
    }

    /**
     * Builds an {@link OpenAiCompatibleClient}. Not thread-safe; the built client keeps no
     * reference to the builder.
     */
    public static final class Builder {

        private final URI endpoint;

        private HttpClient http;

        private Clock clock = Clock.systemUTC();

        private @Nullable Duration responseTimeout;

        private Builder(URI baseUrl) {
            this.endpoint = endpoint(Objects.requireNonNull(baseUrl, "baseUrl must not be null"));
            this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        }

        private static URI endpoint(URI baseUrl) {
            String scheme = baseUrl.getScheme();
            if (!baseUrl.isAbsolute() || baseUrl.getHost() == null
                    || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
                    || baseUrl.getRawQuery() != null || baseUrl.getRawFragment() != null) {
                throw new IllegalArgumentException("baseUrl must be an absolute http or https URI without query or "
                        + "fragment, such as http://127.0.0.1:8081, was " + baseUrl);
            }
            String base = baseUrl.toString();
            while (base.endsWith("/")) {
                base = base.substring(0, base.length() - 1);
            }
            return URI.create(base + CHAT_COMPLETIONS_PATH);
        }

        /**
         * Sets the HTTP client, for its connect timeout, proxy, TLS or executor settings.
         *
         * @param http the client; HTTP/1.1 and HTTP/2 both work
         * @return this builder
         * @throws NullPointerException if {@code http} is {@code null}
         */
        public Builder httpClient(HttpClient http) {
            this.http = Objects.requireNonNull(http, "http must not be null");
            return this;
        }

        /**
         * Sets the clock that an HTTP-date {@code Retry-After} is measured against.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if {@code clock} is {@code null}
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /**
         * Sets how long to wait for the response's status and headers, per attempt. When it passes,
         * the attempt fails with a (retryable) {@link NetworkException}, unlike the call's deadline,
         * which ends the call. Unary providers send their headers only once the whole completion is
         * generated, so this must allow for the slowest completion.
         *
         * @param responseTimeout the timeout, positive
         * @return this builder
         * @throws NullPointerException if {@code responseTimeout} is {@code null}
         * @throws IllegalArgumentException if {@code responseTimeout} is zero or negative
         */
        public Builder responseTimeout(Duration responseTimeout) {
            Objects.requireNonNull(responseTimeout, "responseTimeout must not be null");
            if (responseTimeout.isNegative() || responseTimeout.isZero()) {
                throw new IllegalArgumentException("responseTimeout must be positive, was " + responseTimeout);
            }
            this.responseTimeout = responseTimeout;
            return this;
        }

        /**
         * Builds the client.
         *
         * @return the client
         */
        public OpenAiCompatibleClient build() {
            return new OpenAiCompatibleClient(this);
        }
    }
}
