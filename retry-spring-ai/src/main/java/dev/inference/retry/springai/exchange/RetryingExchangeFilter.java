package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.reactor.ReactorRetry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * Retries the establishment of each exchange of a {@code WebClient} with the decisions of a
 * {@link Retrier} (in the order {@link dev.inference.retry.RetryExecution} owns), without blocking: the
 * innermost filter of a client whose one caller is a model's {@code stream} ({@link Operation#STREAM}).
 *
 * <p>An attempt is one request, sent again from the same {@link ClientRequest}, established when the
 * first line of a successful response has arrived: a {@link WebClientRequestException}, or a body that
 * fails before that line (as a {@link WebClientResponseException}), is a network failure; a status of 400
 * or more an {@link HttpStatusException} ({@link TypedFailures#status}). Content goes on untouched, the
 * bytes read first included, and once it has begun a failure is final. A permanent status is handed on as
 * the response; a retryable one carries its typed failure as its cause, and on exhaustion is the cause of
 * the {@link ExhaustedException}. Waits are {@link ReactorRetry}'s timers, never an event loop. With a
 * {@code stream-idle-timeout}, a body silent for longer once established ends with a
 * {@link StreamStalledException}, its exchange cancelled (a newline-delimited JSON stream has no
 * keep-alives: any bytes count).
 *
 * <p>Trap: operators above the exchange may hold a subscriber's cancellation back (Spring AI's Ollama
 * stream does), so a subscription can carry a {@link CallContext} ({@link #cancelledWith}) whose
 * cancellation ends the call from beneath them with a {@link CancellationException}. Thread-safe.
 */
public final class RetryingExchangeFilter implements ExchangeFilterFunction {

    private static final byte[] NO_BODY = new byte[0];

    /** The key of the call's context in the Reactor context of a subscription. */
    private static final Object CALL = RetryingExchangeFilter.class.getName() + ".call";

    private final ReactorRetry retry;

    private final Clock clock;

    /**
     * Creates the filter.
     *
     * @param retrier the decisions
     */
    public RetryingExchangeFilter(Retrier retrier) {
        this.retry = ReactorRetry.of(Objects.requireNonNull(retrier, "retrier must not be null"));
        this.clock = Clock.systemUTC();
    }

    /**
     * Returns what makes the calls made under it cancellable: a Reactor context entry that tells this
     * filter, beneath operators that may hold a subscriber's cancellation back, that the call is over.
     *
     * @param call the context of one subscription to a stream, which its subscriber's cancellation
     *     cancels
     * @return the function that adds the entry to a Reactor context, for {@code contextWrite}
     */
    public static Function<Context, Context> cancelledWith(CallContext call) {
        Objects.requireNonNull(call, "call must not be null");
        return (context) -> context.put(CALL, call);
    }

    /**
     * Makes the exchange, retrying its establishment as the class documentation describes.
     *
     * @return the response of the first attempt that was established, or of a permanent failure; or an
     *     error: {@link ExhaustedException}, a {@link CancellationException} when the call was cancelled,
     *     or what else the retrier ended the call with
     */
    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        return Mono.deferContextual((view) -> {
            // A fallback chain's member gives up rather than wait for a Retry-After, on any thread (see FallbackMark).
            CallContext call = FallbackMark.mark(view.<CallContext>getOrEmpty(CALL).orElse(CallContext.background()),
                    view);
            Mono<ClientResponse> exchange = withFirstTokenTimeout(Mono.defer(() -> next.exchange(request))
                .onErrorMap(WebClientRequestException.class, RetryingExchangeFilter::networkFailure)
                .flatMap(this::established));
            // A cancellation during the attempt ends it, and the failure is not retried.
            Mono<ClientResponse> attempt = Mono.firstWithSignal(exchange, cancellationOf(call));
            // A one-element stream, so that listeners hear STREAM attempts; it completes after its element.
            return this.retry.flux(attempt.flux(), call)
                .singleOrEmpty()
                .onErrorResume(PermanentStatus.class, (permanent) -> Mono.just(permanent.response));
        });
    }

    /**
     * Bounds an attempt until its first line by the retrier's {@code first-token-timeout}, if it has one:
     * past it, the attempt's exchange is cancelled (Reactor Netty closes its connection) and the attempt
     * fails with {@link AttemptTimeoutException}, retried. The timer is Reactor's parallel scheduler, as
     * for the waits, never an event loop; a cancellation of the call ends the attempt first.
     */
    private Mono<ClientResponse> withFirstTokenTimeout(Mono<ClientResponse> attempt) {
        Optional<Duration> timeout = this.retry.retrier().timeouts().firstToken();
        if (timeout.isEmpty()) {
            return attempt;
        }
        Duration limit = timeout.get();
        return attempt.timeout(limit, Mono.error(() -> new AttemptTimeoutException(limit)), Schedulers.parallel());
    }

    /** Signals a cancellation of the call, if it ever comes; withdraws its registration either way. */
    private static Mono<ClientResponse> cancellationOf(CallContext call) {
        return Mono.create((sink) -> {
            CallContext.Registration registration = call.onCancel(
                    () -> sink.error(new CancellationException("The stream's subscriber cancelled it")));
            sink.onDispose(registration::close);
        });
    }

    /** Passes an established response on; signals a failed one as the failure to decide about. */
    private Mono<ClientResponse> established(ClientResponse response) {
        int status = response.statusCode().value();
        if (status < 400) {
            return (status >= 200 && status <= 299) ? firstLineRead(response, this::watchedForStalls)
                    : Mono.just(response);
        }
        HttpStatusException typed = TypedFailures.status(status, (name) -> TypedFailures.first(response.headers().header(name)), this.clock);
        if (!Classification.isRetryable(typed)) {
            // Read now: a retry that gives up cancels its source, and a cancelled exchange releases the body
            // the client is yet to read for its exception. As when the client reads it, an unreadable
            // body is an empty one.
            return response.bodyToMono(byte[].class)
                .onErrorReturn(Exception.class::isInstance, NO_BODY)
                .defaultIfEmpty(NO_BODY)
                .flatMap((body) -> Mono.error(new PermanentStatus(withBody(response, body), status)));
        }
        // Reads and releases the body, as retrieve() does for an error status.
        return response.createException()
            .flatMap((exception) -> Mono.error(TypedFailures.withTypedCause(exception, typed)));
    }

    /**
     * An established body ended with a {@link StreamStalledException} once it stays silent for longer than
     * the retrier's {@code stream-idle-timeout}, if it has one: its exchange is cancelled (Reactor Netty
     * closes the connection) and the retrier's listeners are told. Timed on Reactor's parallel scheduler,
     * never an event loop.
     */
    private Flux<DataBuffer> watchedForStalls(Flux<DataBuffer> body) {
        Optional<Duration> idle = this.retry.retrier().timeouts().streamIdle();
        if (idle.isEmpty()) {
            return body;
        }
        Duration limit = idle.get();
        return body.timeout(limit, Flux.defer(() -> {
            this.retry.retrier().streamStalled(limit);
            return Flux.error(new StreamStalledException(
                    "The stream sent nothing for longer than its stream-idle-timeout of " + limit, limit));
        }), Schedulers.parallel());
    }

    /** The response with its body, already read, in memory. */
    private static ClientResponse withBody(ClientResponse response, byte[] body) {
        return withBody(response, Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body))));
    }

    /** The response with this body in place of its own, which this body has read. */
    private static ClientResponse withBody(ClientResponse response, Flux<DataBuffer> body) {
        return response.mutate().body((unread) -> body).build();
    }

    /**
     * Reads a successful response up to the end of its first line, or {@link FirstSseEvent#DEFAULT_LIMIT}
     * bytes, or its end, and passes it on with its whole body: the buffers read first, then the rest as
     * it arrives, on the same subscription to the original body, as {@code rest} makes it. A body that
     * fails before is the attempt's network failure.
     */
    private static Mono<ClientResponse> firstLineRead(ClientResponse response,
            Function<Flux<DataBuffer>, Flux<DataBuffer>> rest) {
        FirstLine firstLine = new FirstLine();
        return response.body(BodyExtractors.toDataBuffers())
            .bufferUntil(firstLine::endsWith)
            .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
            // The response goes on as soon as its first line is in; the rest of the body stays subscribed.
            .switchOnFirst((first, parts) -> first.isOnError()
                    ? Mono.error(bodyFailed(response, Objects.requireNonNull(first.getThrowable())))
                    : Mono.just(withBody(response, rest.apply(parts.concatMapIterable(Function.identity())))), false)
            .singleOrEmpty();
    }

    /**
     * The client's exception for a successful response whose body failed, as {@code retrieve()} signals
     * it, with the typed failure beneath it.
     */
    private static WebClientResponseException bodyFailed(ClientResponse response, Throwable failure) {
        HttpStatusCode status = response.statusCode();
        String reason = (status instanceof HttpStatus known) ? known.getReasonPhrase() : "";
        WebClientResponseException thrown = WebClientResponseException.create(status, reason,
                response.headers().asHttpHeaders(), NO_BODY, null, response.request());
        thrown.initCause(TypedFailures.network(failure));
        return thrown;
    }

    /** The client's exception for a network failure, again, with the typed failure beneath it. */
    private static WebClientRequestException networkFailure(WebClientRequestException thrown) {
        Throwable transportFailure = (thrown.getCause() != null) ? thrown.getCause() : thrown;
        WebClientRequestException copy = new WebClientRequestException(
                TypedFailures.network(transportFailure), thrown.getMethod(), thrown.getUri(),
                thrown.getHeaders());
        copy.setStackTrace(thrown.getStackTrace());
        for (Throwable suppressed : thrown.getSuppressed()) {
            copy.addSuppressed(suppressed);
        }
        return copy;
    }

    @Override
    public String toString() {
        return "RetryingExchangeFilter[retrier=" + this.retry.retrier() + "]";
    }

    /**
     * Tells, buffer by buffer, where a body's first line ends: in the buffer that holds its first
     * newline, or the one that reaches the limit. Every buffer after it ends a part of its own, so that
     * it goes on as it arrives. One per response; not thread-safe, as a body's buffers come one by one.
     */
    private static final class FirstLine {

        private long read;

        private boolean ended;

        boolean endsWith(DataBuffer buffer) {
            if (!this.ended) {
                this.read += buffer.readableByteCount();
                this.ended = buffer.indexOf((b) -> b == '\n', buffer.readPosition()) >= 0
                        || this.read >= FirstSseEvent.DEFAULT_LIMIT;
            }
            return this.ended;
        }
    }

    /**
     * A response with a permanent status, on its way through the retry decisions (which hear of it as
     * the failure it is) to the client, which turns it into its own exception.
     */
    private static final class PermanentStatus extends HttpStatusException {

        private static final long serialVersionUID = 1L;

        private final transient ClientResponse response;

        PermanentStatus(ClientResponse response, int status) {
            super(status, "The provider answered HTTP " + status, null);
            this.response = response;
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            // Never thrown to anyone: the client throws its own exception for the response.
            return this;
        }
    }
}
