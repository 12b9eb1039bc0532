package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpMethod;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.errors.InternalServerException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.RateLimitException;
import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryListener;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.springai.CutStreamServer;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.RecordingRetryEvents;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.exchange.RetryingExchanges;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.time.ShutdownSignal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * The retrying HTTP client on Spring AI's real OkHttp transport for the OpenAI SDK, against a provider
 * on a loopback port.
 */
class RetryingHttpClientTests {

    private static final Duration PROMPT = Duration.ofMillis(100);

    private static final Duration MARGIN = Duration.ofMillis(400);

    private static final Policy QUICK = new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1));

    private static final Policy ONE_ATTEMPT = new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1));

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private final RecordingRetryEvents events = new RecordingRetryEvents();

    private final AtomicInteger streamReads = new AtomicInteger();

    private SpringAiOpenAiHttpClient transport;

    private RetryTimer timer;

    private ExecutorService streamReader;

    private StreamCalls streamCalls;

    @BeforeEach
    void setUp() {
        provider.resetAll();
        this.transport = SpringAiOpenAiHttpClient.builder().build();
        this.timer = new RetryTimer();
        this.streamReader = Executors.newCachedThreadPool();
        this.streamCalls = new StreamCalls();
    }

    @AfterEach
    void tearDown() {
        this.transport.close();
        this.timer.close();
        this.streamReader.shutdownNow();
    }

    @Nested
    class Blocking {

        @Test
        void retriesUntilAnAttemptSucceedsAndHandsItsResponseOverUntouched() {
            provider.script(aResponse().withStatus(503), aResponse().withStatus(503), json("{\"ok\":true}"));

            try (HttpResponse response = client(QUICK).execute(request(false))) {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(requests()).hasSize(3);
            assertThat(events.finished()).extracting((finished) -> finished.event().failure() == null)
                .containsExactly(false, false, true);
        }

        @Test
        void abandonsAHungAttemptOnATransportOfItsOwnAndRetriesIt() {
            Duration timeout = Duration.ofMillis(300);
            provider.script(json("{\"ok\":false}").withFixedDelay(10_000), json("{\"ok\":true}"));
            HttpClient client = client(Retrier.builder(QUICK).timeouts(Timeouts.none().withAttempt(timeout)).build());
            long start = System.nanoTime();

            try (HttpResponse response = client.execute(request(false))) {
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(timeout)
                .isLessThan(Duration.ofSeconds(5));
            assertThat(requests()).hasSize(2);
        }

        @Test
        void tellsTheListenersOfAFirstAttemptThatSucceeded() {
            provider.always(json("{}"));

            client(QUICK).execute(request(false)).close();

            assertThat(events.finished()).singleElement()
                .satisfies((finished) -> assertThat(finished.event().attempt()).isEqualTo(1))
                .satisfies((finished) -> assertThat(finished.event().operation()).isEqualTo(Operation.INVOKE));
        }

        @Test
        void countsTheRetriesInTheRetryCountHeader() {
            provider.script(aResponse().withStatus(500), aResponse().withStatus(500), json("{}"));

            client(QUICK).execute(request(false)).close();

            assertThat(requests()).extracting((request) -> request.getHeader(RetryingExchanges.RETRY_COUNT_HEADER))
                .containsExactly("0", "1", "2");
        }

        @Test
        void waitsTheRetryAfterMsTheProviderGaveRatherThanItsRetryAfter() {
            provider.script(aResponse().withStatus(429).withHeader("retry-after-ms", "20").withHeader("Retry-After", "3600"),
                    json("{}"));

            client(QUICK).execute(request(false)).close();

            assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                .containsExactly(Duration.ofMillis(20));
        }

        @Test
        void handsOverTheResponseOfAPermanentFailureForTheSdkToThrowItsOwnException() {
            provider.always(aResponse().withStatus(400).withBody(OpenAiWire.error("invalid_request_error", "Bad")));

            try (HttpResponse response = client(QUICK).execute(request(false))) {
                assertThat(response.statusCode()).isEqualTo(400);
                assertThat(body(response)).isEqualTo(OpenAiWire.error("invalid_request_error", "Bad"));
            }
            assertThat(requests()).hasSize(1);
            assertThat(events.finished()).singleElement().satisfies((finished) -> {
                assertThat(finished.event().retryable()).isFalse();
                assertThat(finished.event().failure()).isInstanceOfSatisfying(HttpStatusException.class,
                        (failure) -> assertThat(failure.status()).isEqualTo(400));
            });
        }

        @Test
        void closesTheResponseItWouldHaveHandedOverWhenAListenerThrowsAnError() {
            provider.always(aResponse().withStatus(400));
            List<HttpResponse> closed = new CopyOnWriteArrayList<>();
            HttpClient closeRecording = new HttpClient() {

                @Override
                public HttpResponse execute(HttpRequest request, RequestOptions requestOptions) {
                    return closeRecorded(transport.execute(request, requestOptions), closed);
                }

                @Override
                public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions requestOptions) {
                    return transport.executeAsync(request, requestOptions).thenApply((response) -> closeRecorded(response, closed));
                }

                @Override
                public void close() {
                    transport.close();
                }
            };
            Retrier failingListener = Retrier.builder(QUICK).listener(new RetryListener() {

                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw new AssertionError("listener");
                }
            }).build();
            HttpClient client = RetryingHttpClient.of(OpenAiHttp.HTTP, closeRecording, failingListener, timer,
                    streamReader, streamCalls, false);

            assertThatThrownBy(() -> client.execute(request(false))).isInstanceOf(AssertionError.class).hasMessage("listener");
            assertThat(closed).hasSize(1);
        }

        @Test
        void givesUpWithTheSdkExceptionForAStatusAsTheCause() {
            provider.always(aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Busy")));

            assertThatThrownBy(() -> client(QUICK).execute(request(false)))
                .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOf(InternalServerException.class)
                        .hasMessage("503: Busy")
                        .hasCauseInstanceOf(HttpStatusException.class);
                    assertThat(ex.getSuppressed()).hasSize(2);
                });
            assertThat(requests()).hasSize(3);
        }

        /** A connection reset before the response (the transport's failure), or a body broken before its end. */
        @ParameterizedTest(name = "{0}")
        @CsvSource({ "CONNECTION_RESET_BY_PEER, Request failed",
                "MALFORMED_RESPONSE_CHUNK, Reading the response failed" })
        void givesUpWithTheSdksIoExceptionForANetworkFailureAsTheCause(Fault fault, String message) {
            provider.always(aResponse().withFault(fault));

            assertThatThrownBy(() -> client(QUICK).execute(request(false)))
                .isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.getCause()).isInstanceOf(OpenAIIoException.class)
                            .hasMessage(message)
                            .cause()
                            .isInstanceOf(NetworkException.class)
                            .hasCauseInstanceOf(IOException.class));
            assertThat(requests()).hasSize(3);
        }

        @Test
        void sendsABodyThatCannotBeSentTwiceOnlyOnce() {
            provider.always(aResponse().withStatus(503));

            try (HttpResponse response = client(QUICK).execute(request(false, false))) {
                assertThat(response.statusCode()).isEqualTo(503);
            }
            assertThat(requests()).hasSize(1);
            assertThat(events.finished()).isEmpty();
        }

        @Test
        void endsTheWaitAtOnceWhenTheApplicationShutsDown() throws InterruptedException {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600"));
            ShutdownSignal shutdown = ShutdownSignal.create();
            HttpClient client = client(Retrier.builder(QUICK).listener(events).shutdownSignal(shutdown)
                .build());
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    client.execute(request(false)).close();
                }
                catch (RuntimeException ex) {
                    thrown.set(ex);
                }
            });
            caller.start();
            awaitTrue(() -> !events.scheduled().isEmpty(), Duration.ofSeconds(10));

            shutdown.shutDown();
            caller.join(PROMPT.plus(MARGIN).toMillis());

            assertThat(caller.isAlive()).isFalse();
            assertThat(thrown.get()).isInstanceOf(ShutdownException.class);
            assertThat(requests()).hasSize(1);
        }
    }

    @Nested
    class Async {

        @Test
        void retriesAnAttemptWhoseTimeoutPassesAsItsResponseIsReadAndClosesThatResponse() {
            List<Runnable> timeouts = new CopyOnWriteArrayList<>();
            AttemptScope.Timer timer = (delay, action) -> {
                timeouts.add(action);
                return () -> {
                };
            };
            // The first response's body ends just as its attempt's timeout passes: the timer runs at its end.
            byte[] late = "{\"ok\":false}".getBytes(StandardCharsets.UTF_8);
            ScriptedResponse first = new ScriptedResponse(200, "application/json",
                    () -> new SequenceInputStream(new ByteArrayInputStream(late), new InputStream() {

                        @Override
                        public int read() {
                            timeouts.get(0).run();
                            return -1;
                        }
                    }));
            ScriptedResponse second = ScriptedResponse.text(200, "application/json", () -> "{\"ok\":true}");
            List<ScriptedResponse> responses = List.of(first, second);
            AtomicInteger sent = new AtomicInteger();
            Retrier timed = retrier(QUICK).timer(timer)
                .timeouts(Timeouts.none().withAttempt(Duration.ofSeconds(30)))
                .build();
            HttpClient client = client(timed,
                    (request) -> CompletableFuture.completedFuture(responses.get(sent.getAndIncrement())));

            try (HttpResponse response = client.executeAsync(request(false)).join()) {
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(sent).hasValue(2);
            assertThat(first.closes()).isPositive();
            assertThat(events.scheduled()).singleElement()
                .satisfies((retried) -> assertThat(retried.failed().failure())
                    .isInstanceOf(AttemptTimeoutException.class));
        }

        @Test
        void waitsWithoutBlockingAndCompletesWithTheResponseOfTheAttemptThatSucceeded() {
            provider.script(aResponse().withStatus(429).withHeader("Retry-After", "1"), json("{\"ok\":true}"));

            CompletableFuture<HttpResponse> future = client(Retrier.builder(QUICK).listener(events).observer(events)
                .build()).executeAsync(request(false));
            awaitTrue(() -> timer.pendingWaits() == 1, Duration.ofSeconds(10));

            assertThat(future).isNotDone();
            try (HttpResponse response = future.join()) {
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(requests()).hasSize(2);
            assertThat(events.waits()).singleElement()
                .satisfies((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
        }

        @Test
        void failsWithTheExhaustionWhenAttemptsRunOut() {
            provider.always(aResponse().withStatus(503));

            CompletableFuture<HttpResponse> future = client(QUICK).executeAsync(request(false));

            assertThatThrownBy(future::join).isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(ExhaustedException.class)
                .hasCauseInstanceOf(InternalServerException.class);
            assertThat(requests()).hasSize(3);
        }

        @Test
        void endsTheWaitWithNoFurtherRequestWhenTheFutureIsCancelled() {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600"));
            CompletableFuture<HttpResponse> future = client(QUICK).executeAsync(request(false));
            awaitTrue(() -> timer.pendingWaits() == 1, Duration.ofSeconds(10));

            future.cancel(true);

            awaitTrue(() -> timer.pendingWaits() == 0, PROMPT.plus(MARGIN));
            assertThat(requests()).hasSize(1);
        }

        @Test
        void endsTheWaitWhenItsStreamCallIsCancelled() {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600"));
            CallContext call = CallContext.cancellable();
            String id = streamCalls.register(call);
            CompletableFuture<HttpResponse> future = client(QUICK).executeAsync(request(true).toBuilder()
                .putHeader(StreamCalls.HEADER, id)
                .build());
            awaitTrue(() -> timer.pendingWaits() == 1, Duration.ofSeconds(10));

            call.cancel();

            assertThatThrownBy(() -> future.get(PROMPT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(CancellationException.class);
            // The wait may still be withdrawing its timer entry, which it scheduled as it began.
            awaitTrue(() -> timer.pendingWaits() == 0, PROMPT.plus(MARGIN));
            assertThat(requests()).hasSize(1)
                .allSatisfy((request) -> assertThat(request.containsHeader(StreamCalls.HEADER)).isFalse());
        }

        @Test
        void makesNoRequestForAStreamCallThatEndedBeforeItsExchangeBegan() {
            CompletableFuture<HttpResponse> future = client(QUICK).executeAsync(request(true).toBuilder()
                .putHeader(StreamCalls.HEADER, "forgotten")
                .build());

            assertThatThrownBy(future::join).isInstanceOf(CancellationException.class);
            assertThat(requests()).isEmpty();
        }

        @Test
        void failsAWaitThatTheTimerAbandonsWhenItCloses() {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600"));
            CompletableFuture<HttpResponse> future = client(QUICK).executeAsync(request(false));
            awaitTrue(() -> timer.pendingWaits() == 1, Duration.ofSeconds(10));

            timer.close();

            assertThatThrownBy(future::join).hasCauseInstanceOf(ShutdownException.class);
            assertThat(requests()).hasSize(1);
        }
    }

    /** A successful unary response, whose body the attempt reads whole before it is handed over. */
    @Nested
    class UnaryBodies {

        @Test
        void retriesABodyThatBrokeBeforeItsEndAsANetworkFailure() {
            provider.script(aResponse().withFault(Fault.MALFORMED_RESPONSE_CHUNK), json("{\"ok\":true}"));

            try (HttpResponse response = client(QUICK).execute(request(false))) {
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(requests()).hasSize(2);
            assertThat(events.finished()).first().satisfies((finished) -> {
                assertThat(finished.event().retryable()).isTrue();
                assertThat(finished.event().failure()).isInstanceOf(OpenAIIoException.class)
                    .hasCauseInstanceOf(NetworkException.class);
            });
        }

        @Test
        void readsTheBodyOnTheBodyReaderWhenNotBlocking() {
            provider.script(aResponse().withFault(Fault.MALFORMED_RESPONSE_CHUNK), json("{\"ok\":true}"));

            try (HttpResponse response = client(QUICK).executeAsync(request(false)).join()) {
                assertThat(body(response)).isEqualTo("{\"ok\":true}");
            }
            assertThat(streamReads).hasValue(2);
            assertThat(requests()).hasSize(2);
        }

        @Test
        void handsOverABodyLongerThanTheAttemptReadsWholeTheRestAsItArrives() throws IOException {
            // More than the 16 MiB an attempt reads: the rest is left for the SDK to read.
            long length = 17L * 1024 * 1024;
            ScriptedResponse response = new ScriptedResponse(200, "application/json", () -> generated(length));

            try (HttpResponse handedOver = client(retrier(ONE_ATTEMPT).build(),
                    (request) -> CompletableFuture.completedFuture(response)).execute(request(false))) {
                assertThat(handedOver.body().transferTo(OutputStream.nullOutputStream())).isEqualTo(length);
            }
        }
    }

    @Nested
    class Streams {

        @Test
        void handsOverAStreamWhoseFirstEventIsContentByteForByte() {
            String stream = ": keep-alive\r\n\r\n" + OpenAiWire.stream(List.of("Hel", "lo"));
            provider.always(eventStream(stream));

            try (HttpResponse response = client(QUICK).execute(request(true))) {
                assertThat(body(response)).isEqualTo(stream);
            }
            assertThat(events.finished()).singleElement()
                .satisfies((finished) -> assertThat(finished.event().operation()).isEqualTo(Operation.STREAM));
        }

        @Test
        void retriesATransientErrorSentAsTheFirstEvent() {
            provider.script(eventStream(OpenAiWire.event(OpenAiWire.error("server_error", "Busy"))),
                    eventStream(OpenAiWire.stream(List.of("Hello"))));

            try (HttpResponse response = client(QUICK).execute(request(true))) {
                assertThat(body(response)).isEqualTo(OpenAiWire.stream(List.of("Hello")));
            }
            assertThat(requests()).hasSize(2);
        }

        @Test
        void handsOverAPermanentErrorSentAsTheFirstEventByteForByte() {
            String stream = OpenAiWire.event(OpenAiWire.error("invalid_request_error", "Bad")) + OpenAiWire.event("[DONE]");
            provider.always(eventStream(stream));

            try (HttpResponse response = client(QUICK).execute(request(true))) {
                assertThat(body(response)).isEqualTo(stream);
            }
            assertThat(requests()).hasSize(1);
        }

        @Test
        void retriesAStreamCutBeforeItsFirstEventWasComplete() throws IOException {
            try (CutStreamServer cutting = new CutStreamServer("data: {\"id\":")) {
                HttpClient client = client(QUICK);

                assertThatThrownBy(() -> client.execute(request(true, true, cutting.port())))
                    .isInstanceOfSatisfying(ExhaustedException.class,
                            (ex) -> assertThat(ex.getCause()).isInstanceOf(OpenAIIoException.class)
                                .hasMessage("Stream failed")
                                .hasCauseInstanceOf(NetworkException.class));
                assertThat(cutting.requests()).isEqualTo(3);
            }
        }

        @Test
        void readsTheFirstEventOnTheStreamReaderWhenNotBlocking() {
            provider.script(eventStream(OpenAiWire.event(OpenAiWire.error("rate_limit_exceeded", "Slow down"))),
                    eventStream(OpenAiWire.stream(List.of("Hello"))));

            try (HttpResponse response = client(QUICK).executeAsync(request(true)).join()) {
                assertThat(body(response)).isEqualTo(OpenAiWire.stream(List.of("Hello")));
            }
            assertThat(streamReads).hasValue(2);
            assertThat(requests()).hasSize(2);
        }
    }

    /**
     * The asynchronous exchange when the call's context is done as an attempt ends, on a scripted
     * transport that cancels the call at a chosen point of the attempt.
     */
    @Nested
    class CancelledAsAnAttemptEnds {

        private final AtomicInteger sent = new AtomicInteger();

        private final CallContext call = CallContext.cancellable();

        @Test
        void exhaustsTheCallWhenItsLastAttemptFailsRetryably() {
            HttpClient client = client(retrier(ONE_ATTEMPT).build(), cancellingThenAnswering(429));

            assertThatThrownBy(() -> executeAsync(client).join()).isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(ExhaustedException.class)
                .hasCauseInstanceOf(RateLimitException.class);
            assertThat(events.exhausted()).hasSize(1);
        }

        @Test
        void tellsTheListenersOfTheAttemptsOwnFailure() {
            HttpClient client = client(retrier(ONE_ATTEMPT).build(), cancellingThenAnswering(429));

            assertThatThrownBy(() -> executeAsync(client).join()).isInstanceOf(CompletionException.class);

            assertThat(events.finished()).singleElement().satisfies((finished) -> {
                assertThat(finished.event().failure()).isInstanceOf(RateLimitException.class);
                assertThat(finished.event().retryable()).isTrue();
            });
        }

        @Test
        void coolsTheKeyForTheProvidersRetryAfter() {
            LocalCooldownStore store = LocalCooldownStore.create();
            HttpClient client = client(retrier(QUICK).cooldown(store, null).build(), cancellingThenAnswering(429));

            assertThatThrownBy(() -> executeAsync(client).join()).isInstanceOf(CancellationException.class);

            assertThat(store.remaining("test")).isGreaterThan(Duration.ofSeconds(59));
        }

        @Test
        void takesARetryBudgetTokenForTheRetryableFailure() {
            RetryBudget budget = RetryBudget.of(10, new BigDecimal("0.1"));
            HttpClient client = client(retrier(QUICK).budget(budget).build(), cancellingThenAnswering(429));

            assertThatThrownBy(() -> executeAsync(client).join()).isInstanceOf(CancellationException.class);

            assertThat(budget.tokens()).isEqualByComparingTo("9");
        }

        @Test
        void endsWithTheCancellationAndNoFurtherRequestWhenAttemptsRemain() {
            HttpClient client = client(retrier(QUICK).build(), cancellingThenAnswering(429));

            assertThat(failureOf(executeAsync(client))).isInstanceOf(CancellationException.class)
                .hasMessage("The call was cancelled")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(RateLimitException.class));
            assertThat(this.sent).hasValue(1);
            assertThat(timer.pendingWaits()).isZero();
        }

        @Test
        void handsOverAPermanentFailureForTheSdkToThrowItsOwnException() {
            HttpClient client = client(retrier(QUICK).build(), cancellingThenAnswering(400));

            HttpResponse response = executeAsync(client).join();

            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(((ScriptedResponse) response).closes()).isZero();
            assertThat(events.finished()).singleElement()
                .satisfies((finished) -> assertThat(finished.event().retryable()).isFalse());
        }

        @Test
        void closesAPermanentFailureThatNobodyWillReadWhenTheFutureIsCancelled() {
            CompletableFuture<HttpResponse> pending = new CompletableFuture<>();
            AtomicReference<CompletableFuture<HttpResponse>> future = new AtomicReference<>();
            Retrier cancellingListener = Retrier.builder(QUICK).name("test").listener(new RetryListener() {

                @Override
                public void attemptFinished(AttemptEvent event) {
                    future.get().cancel(true);
                }
            }).build();
            future.set(client(cancellingListener, (request) -> pending).executeAsync(request(false)));
            ScriptedResponse permanent = ScriptedResponse.text(400, "application/json", () -> "{}");

            pending.complete(permanent);

            assertThat(future.get()).isCancelled();
            assertThat(permanent.closes()).isEqualTo(1);
        }

        @Test
        void endsWithTheCancellationWhenItCancelsTheAttemptInFlight() {
            CompletableFuture<HttpResponse> pending = new CompletableFuture<>();
            CompletableFuture<HttpResponse> future = executeAsync(client(retrier(ONE_ATTEMPT).build(), (request) -> {
                this.sent.incrementAndGet();
                return pending;
            }));

            this.call.cancel();

            assertThat(pending).isCancelled();
            assertThat(failureOf(future)).isInstanceOf(CancellationException.class).hasMessage("The call was cancelled");
            assertThat(events.exhausted()).isEmpty();
            assertThat(this.sent).hasValue(1);
        }

        @ParameterizedTest(name = "stream: {0}")
        @ValueSource(booleans = { true, false })
        void endsWithTheCancellationWhenClosingTheResponseOnItEndsTheReadOfItsBody(boolean stream) {
            String type = stream ? "text/event-stream" : "application/json";
            ScriptedResponse response = new ScriptedResponse(200, type, InputStream::nullInputStream) {

                @Override
                public InputStream body() {
                    return new InputStream() {

                        @Override
                        public int read() throws IOException {
                            // The caller closes the stream while its body (or first event) is awaited.
                            CancelledAsAnAttemptEnds.this.call.cancel();
                            throw new IOException("Socket closed");
                        }
                    };
                }
            };
            HttpClient client = client(retrier(ONE_ATTEMPT).build(),
                    (request) -> CompletableFuture.completedFuture(response));

            assertThat(failureOf(executeAsync(client, stream))).isInstanceOf(CancellationException.class)
                .hasMessage("The call was cancelled");
            assertThat(events.exhausted()).isEmpty();
        }

        /** A transport whose attempt sees the call cancelled while the provider's answer is on its way back. */
        private Function<HttpRequest, CompletableFuture<HttpResponse>> cancellingThenAnswering(int status) {
            return (request) -> {
                this.sent.incrementAndGet();
                this.call.cancel();
                ScriptedResponse response = ScriptedResponse.text(status, "application/json", () -> "{}");
                return CompletableFuture.completedFuture(response.withHeader("Retry-After", "60"));
            };
        }

        /**
         * What the call's future failed with, as the exchange completed it: {@code join()} would do, but
         * from Java 23 on it throws a new {@code CancellationException("join")} in place of the one the
         * future holds.
         */
        private Throwable failureOf(CompletableFuture<HttpResponse> future) {
            Throwable thrown = future.handle((response, failure) -> failure).join();
            assertThat(thrown).as("the call's failure").isNotNull();
            return (thrown instanceof CompletionException wrapped && wrapped.getCause() != null) ? wrapped.getCause()
                    : thrown;
        }

        private CompletableFuture<HttpResponse> executeAsync(HttpClient client) {
            return executeAsync(client, true);
        }

        private CompletableFuture<HttpResponse> executeAsync(HttpClient client, boolean stream) {
            return client.executeAsync(request(stream).toBuilder()
                .putHeader(StreamCalls.HEADER, streamCalls.register(this.call))
                .build());
        }
    }

    /** What an Error (or any exception) thrown while a response is read leaves behind, on a scripted transport. */
    @Nested
    class ThrownWhileReadingAResponse {

        @ParameterizedTest
        @EnumSource
        void closesTheResponseAndRethrowsAnErrorFromReadingTheFirstEvent(Exchange exchange) {
            AssertionError error = new AssertionError("read failed");
            ScriptedResponse response = ScriptedResponse.text(200, "text/event-stream", () -> {
                throw error;
            });

            Throwable thrown = exchange.thrownBy(client(retrier(ONE_ATTEMPT).build(),
                    (request) -> CompletableFuture.completedFuture(response)), request(true));

            assertThat(thrown).isSameAs(error);
            assertThat(response.closes()).isEqualTo(1);
        }

        @ParameterizedTest
        @EnumSource
        void endsTheAttemptsObservationWhenAnErrorEndsTheCall(Exchange exchange) {
            List<String> observed = new CopyOnWriteArrayList<>();
            Retrier observedRetrier = retrier(ONE_ATTEMPT).observer((client, operation, attempt) -> {
                observed.add("started " + attempt);
                return (outcome, retryDelay) -> observed.add("ended " + attempt + " " + outcome.failure());
            }).build();
            AssertionError error = new AssertionError("read failed");
            ScriptedResponse response = ScriptedResponse.text(200, "text/event-stream", () -> {
                throw error;
            });

            exchange.thrownBy(client(observedRetrier, (request) -> CompletableFuture.completedFuture(response)),
                    request(true));

            assertThat(observed).containsExactly("started 1", "ended 1 " + error);
        }

        @ParameterizedTest
        @MethodSource("dev.inference.retry.springai.openai.RetryingHttpClientTests#exchangesAndThrowables")
        void closesTheResponseAndRethrowsWhatReadingItsHeadersThrows(Exchange exchange, Throwable failure) {
            ScriptedResponse response = ScriptedResponse.text(429, "application/json", () -> "{}")
                .withHeadersThrowing(failure);

            Throwable thrown = exchange.thrownBy(client(retrier(ONE_ATTEMPT).build(),
                    (request) -> CompletableFuture.completedFuture(response)), request(false));

            assertThat(thrown).isSameAs(failure);
            assertThat(response.closes()).isEqualTo(1);
        }
    }

    static Stream<Arguments> exchangesAndThrowables() {
        return Stream.of(Exchange.values())
            .flatMap((exchange) -> Stream.of(Arguments.of(exchange, new AssertionError("headers")),
                    Arguments.of(exchange, new IllegalStateException("headers"))));
    }

    private Retrier.Builder retrier(Policy policy) {
        return Retrier.builder(policy).name("test").listener(this.events);
    }

    private HttpClient client(Retrier retrier, Function<HttpRequest, CompletableFuture<HttpResponse>> transport) {
        HttpClient scripted = new HttpClient() {

            @Override
            public HttpResponse execute(HttpRequest request, RequestOptions requestOptions) {
                return transport.apply(request).join();
            }

            @Override
            public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions requestOptions) {
                return transport.apply(request);
            }

            @Override
            public void close() {
            }
        };
        return RetryingHttpClient.of(OpenAiHttp.HTTP, scripted, retrier, this.timer, Runnable::run, this.streamCalls, false);
    }

    private HttpClient client(Policy policy) {
        return client(Retrier.builder(policy).name("test").listener(this.events).build());
    }

    private HttpClient client(Retrier retrier) {
        return RetryingHttpClient.of(OpenAiHttp.HTTP, this.transport, retrier, this.timer, (task) -> {
            this.streamReads.incrementAndGet();
            this.streamReader.execute(task);
        }, this.streamCalls, false);
    }

    private static HttpResponse closeRecorded(HttpResponse response, List<HttpResponse> closed) {
        return new HttpResponse() {

            @Override
            public int statusCode() {
                return response.statusCode();
            }

            @Override
            public Headers headers() {
                return response.headers();
            }

            @Override
            public InputStream body() {
                return response.body();
            }

            @Override
            public void close() {
                closed.add(this);
                response.close();
            }
        };
    }

    private static HttpRequest request(boolean stream) {
        return request(stream, true);
    }

    private static HttpRequest request(boolean stream, boolean repeatable) {
        return request(stream, repeatable, provider.port());
    }

    private static HttpRequest request(boolean stream, boolean repeatable, int port) {
        return HttpRequest.builder()
            .method(HttpMethod.POST)
            .baseUrl("http://127.0.0.1:" + port + "/v1")
            .addPathSegments("chat", "completions")
            .putHeader("Accept", stream ? "text/event-stream" : "application/json")
            .putHeader(RetryingExchanges.RETRY_COUNT_HEADER, "0")
            .body(new JsonBody("{\"model\":\"gpt-4o-mini\",\"stream\":" + stream + "}", repeatable))
            .build();
    }

    private static List<LoggedRequest> requests() {
        return provider.findAll(postRequestedFor(urlEqualTo(OpenAiWire.PATH)));
    }

    private static String body(HttpResponse response) {
        try (InputStream body = response.body()) {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A body of {@code length} bytes, made as it is read. */
    private static InputStream generated(long length) {
        return new InputStream() {

            private long left = length;

            @Override
            public int read() {
                return (this.left-- > 0) ? ' ' : -1;
            }

            @Override
            public int read(byte[] buffer, int offset, int count) {
                if (this.left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(count, this.left);
                Arrays.fill(buffer, offset, offset + n, (byte) ' ');
                this.left -= n;
                return n;
            }
        };
    }

    private static ResponseDefinitionBuilder json(String body) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(body);
    }

    private static ResponseDefinitionBuilder eventStream(String body) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(body);
    }

    /** How a test makes its exchange: blocking or not; each gives back what the call ended with, unwrapped. */
    enum Exchange {

        BLOCKING {
            @Override
            Throwable thrownBy(HttpClient client, HttpRequest request) {
                return catchThrowable(() -> client.execute(request));
            }
        },

        ASYNC {
            @Override
            Throwable thrownBy(HttpClient client, HttpRequest request) {
                return catchThrowable(() -> client.executeAsync(request).join()).getCause();
            }
        };

        abstract Throwable thrownBy(HttpClient client, HttpRequest request);
    }

    /** A provider's response made up by a test, which counts its closes. */
    private static class ScriptedResponse implements HttpResponse {

        private final int status;

        private final Headers.Builder headers;

        private final Supplier<InputStream> body;

        private final AtomicInteger closes = new AtomicInteger();

        private @Nullable Throwable headersFailure;

        /** A response whose body is the stream {@code body} gives, asked for when it is read; it may throw instead. */
        ScriptedResponse(int status, String contentType, Supplier<InputStream> body) {
            this.status = status;
            this.headers = Headers.builder().put("Content-Type", contentType);
            this.body = body;
        }

        /** A response whose body is what {@code body} gives, read when asked for; it may throw instead. */
        static ScriptedResponse text(int status, String contentType, Supplier<String> body) {
            return new ScriptedResponse(status, contentType,
                    () -> new ByteArrayInputStream(body.get().getBytes(StandardCharsets.UTF_8)));
        }

        ScriptedResponse withHeader(String name, String value) {
            this.headers.put(name, value);
            return this;
        }

        ScriptedResponse withHeadersThrowing(Throwable failure) {
            this.headersFailure = failure;
            return this;
        }

        int closes() {
            return this.closes.get();
        }

        @Override
        public int statusCode() {
            return this.status;
        }

        @Override
        public Headers headers() {
            Throwable failure = this.headersFailure;
            if (failure instanceof Error error) {
                throw error;
            }
            if (failure instanceof RuntimeException exception) {
                throw exception;
            }
            return this.headers.build();
        }

        @Override
        public InputStream body() {
            return this.body.get();
        }

        @Override
        public void close() {
            this.closes.incrementAndGet();
        }
    }

    /** A JSON request body, as the SDK makes one: repeatable unless told otherwise. */
    private record JsonBody(String json, boolean repeatable) implements HttpRequestBody {

        @Override
        public void writeTo(OutputStream outputStream) {
            try {
                outputStream.write(this.json.getBytes(StandardCharsets.UTF_8));
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public String contentType() {
            return "application/json";
        }

        @Override
        public long contentLength() {
            return this.json.getBytes(StandardCharsets.UTF_8).length;
        }

        @Override
        public void close() {
        }
    }
}
