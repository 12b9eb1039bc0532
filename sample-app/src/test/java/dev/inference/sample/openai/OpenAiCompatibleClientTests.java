package dev.inference.sample.openai;

import static dev.inference.sample.openai.LoopbackServer.DONE;
import static dev.inference.sample.openai.LoopbackServer.SSE_HEAD;
import static dev.inference.sample.openai.LoopbackServer.chunk;
import static dev.inference.sample.openai.LoopbackServer.completion;
import static dev.inference.sample.openai.LoopbackServer.respond;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.client.Authorizer;
import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.sample.Http1;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;

/**
 * Tests for {@link OpenAiCompatibleClient}, over real loopback sockets.
 */
// A guard against a hang, not a timing assertion: every test here finishes in well under a second.
@Timeout(30)
class OpenAiCompatibleClientTests {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Hello");

    private static final String UNARY_BODY =
            "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"stream\":false}";

    private static final String STREAM_BODY =
            "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"stream\":true}";

    /** The longest line, and event, that a stream reader accepts. */
    private static final int ONE_MIB = 1024 * 1024;

    /** Retries at once: the tests count attempts, they do not wait for them. */
    private static final Policy POLICY = new Policy(1, Duration.ofMillis(1), 3, Duration.ofMillis(1));

    private LoopbackServer server;

    private OpenAiCompatibleClient client;

    @BeforeEach
    void startServer() {
        this.server = LoopbackServer.start();
        this.client = OpenAiCompatibleClient.builder(this.server.baseUrl()).clock(CLOCK).build();
    }

    @AfterEach
    void stopServer() throws IOException {
        this.server.close();
    }

    private RetryClient retrying() {
        return RetryClient.of(this.client, Retrier.builder(POLICY).sleeper((delay, context) -> { }).build());
    }

    @Nested
    class Invoke {

        @Test
        void returnsTheMessageContent() {
            server.enqueue(completion("Hi there"));

            InferenceResponse response = client.invoke(REQUEST, CallContext.background());

            assertThat(response.output()).isEqualTo("Hi there");
            assertThat(response.attempts()).isZero();
        }

        @Test
        void postsTheChatRequestAsJson() {
            server.enqueue(completion("Hi"));

            client.invoke(REQUEST, CallContext.background());

            Http1.Request received = server.requests().get(0);
            assertThat(received.method()).isEqualTo("POST");
            assertThat(received.path()).isEqualTo("/v1/chat/completions");
            assertThat(received.header("Content-Type")).isEqualTo("application/json");
            assertThat(received.header("Accept")).isEqualTo("application/json");
            assertThat(received.bodyText()).isEqualTo(UNARY_BODY);
        }

        @Test
        void sendsByteIdenticalBodiesOnEveryAttempt() {
            server.enqueue(respond(503, Map.of(), ""));
            server.enqueue(respond(429, Map.of(), ""));
            server.enqueue(completion("Hi"));

            InferenceResponse response = retrying().invoke(REQUEST, CallContext.background());

            assertThat(response.attempts()).isEqualTo(3);
            List<Http1.Request> requests = server.requests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(1).body()).isEqualTo(requests.get(0).body());
            assertThat(requests.get(2).body()).isEqualTo(requests.get(0).body());
        }
    }

    @Nested
    class TransportFailures {

        @Test
        void refusedConnectionIsANetworkException() throws IOException {
            URI closedPort;
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                closedPort = URI.create("http://127.0.0.1:" + socket.getLocalPort());
            }
            OpenAiCompatibleClient refused = OpenAiCompatibleClient.builder(closedPort).build();

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> refused.invoke(REQUEST))
                    .withMessage("The provider refused the connection")
                    .withCauseInstanceOf(ConnectException.class);
        }

        @Test
        void resetBeforeTheResponseIsANetworkException() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.reset();
            });

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The connection failed before the provider's response arrived")
                    .withCauseInstanceOf(IOException.class);
        }

        @Test
        void closeWithoutAResponseIsANetworkException() {
            server.enqueue((connection) -> connection.readRequest());

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The connection failed before the provider's response arrived")
                    .withCauseInstanceOf(IOException.class);
        }

        @Test
        void headersSlowerThanTheResponseTimeoutAreANetworkException() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.awaitClientClose();
            });
            OpenAiCompatibleClient impatient = OpenAiCompatibleClient.builder(server.baseUrl())
                    .responseTimeout(Duration.ofMillis(100)).build();

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> impatient.invoke(REQUEST))
                    .withMessage("The provider sent no response within PT0.1S")
                    .withCauseInstanceOf(HttpTimeoutException.class);
        }

        @Test
        void bodyCutBeforeItsLengthIsANetworkException() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
                        + "{\"choices\":[");
            });

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The connection was cut before the response was complete")
                    .withCauseInstanceOf(IOException.class);
        }

        @Test
        void malformedJsonIsANetworkException() {
            server.enqueue(respond(200, Map.of("Content-Type", "application/json"), "{\"choices\": [oops"));

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider's response is not valid JSON")
                    .withCauseInstanceOf(JacksonException.class);
        }

        @ParameterizedTest
        @ValueSource(strings = { "{}", "{\"choices\":[]}", "{\"choices\":[{\"message\":{\"content\":null}}]}",
                "{\"choices\":[{\"message\":{\"content\":42}}]}" })
        void responseWithoutMessageTextIsANetworkException(String body) {
            server.enqueue(respond(200, Map.of("Content-Type", "application/json"), body));

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider's response has no text at choices[0].message.content")
                    .withNoCause();
        }
    }

    @Nested
    class StatusFailures {

        @ParameterizedTest
        @ValueSource(ints = { 301, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504 })
        void everyNon2xxStatusIsAnHttpStatusException(int status) {
            server.enqueue(respond(status, Map.of(), ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider answered " + status + " to POST /v1/chat/completions")
                    .satisfies((ex) -> {
                        assertThat(ex.status()).isEqualTo(status);
                        assertThat(ex.retryAfter()).isEmpty();
                    });
        }

        @Test
        void messageNamesTheProvidersErrorCode() {
            server.enqueue(respond(429, Map.of(),
                    "{\"error\":{\"message\":\"Slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider answered 429 (rate_limit_exceeded) to POST /v1/chat/completions");
        }

        @Test
        void aUsedUpQuotaIsAQuotaExceededExceptionWithTheProvidersMessage() {
            server.enqueue(respond(429, Map.of("Retry-After", "20"), "{\"error\":{\"message\":\"You exceeded your "
                    + "current quota.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}"));

            assertThatExceptionOfType(QuotaExceededException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("You exceeded your current quota.")
                    .satisfies((ex) -> {
                        assertThat(ex.status()).isEqualTo(429);
                        assertThat(ex.code()).isEqualTo("insufficient_quota");
                    });
        }

        @Test
        void aQuotaErrorWithAnotherStatusIsAStatusFailure() {
            server.enqueue(respond(400, Map.of(), "{\"error\":{\"message\":\"No quota.\",\"code\":\"insufficient_quota\"}}"));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider answered 400 (insufficient_quota) to POST /v1/chat/completions");
        }

        @Test
        void messageLeavesOutAnErrorThatIsNotAnIdentifier() {
            server.enqueue(respond(401, Map.of(),
                    "{\"error\":{\"message\":\"Incorrect API key sk-secret\",\"code\":\"key sk-secret is wrong\"}}"));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider answered 401 to POST /v1/chat/completions");
        }

        @Test
        void closesALongErrorBodyWithoutReadingItAll() throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write("HTTP/1.1 503 Busy\r\nContent-Length: 100000000\r\n\r\n" + "x".repeat(64 * 1024));
                connection.awaitClientClose();
                closedByClient.complete(null);
            });

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .satisfies((ex) -> assertThat(ex.status()).isEqualTo(503));
            closedByClient.get();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.inference.sample.openai.OpenAiCompatibleClientTests#retryAfterHeaders")
        void readsTheProvidersDelay(String description, Map<String, String> headers, Optional<Duration> expected) {
            server.enqueue(respond(429, headers, ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .satisfies((ex) -> assertThat(ex.retryAfter()).isEqualTo(expected));
        }
    }

    static Stream<Arguments> retryAfterHeaders() {
        return Stream.of(
                Arguments.of("retry-after-ms", Map.of("retry-after-ms", "1500"), Optional.of(Duration.ofMillis(1500))),
                Arguments.of("Retry-After seconds", Map.of("Retry-After", "7"), Optional.of(Duration.ofSeconds(7))),
                Arguments.of("Retry-After HTTP date", Map.of("Retry-After", "Sun, 29 Nov 2026 12:00:30 GMT"),
                        Optional.of(Duration.ofSeconds(30))),
                Arguments.of("Retry-After date in the past", Map.of("Retry-After", "Sun, 29 Nov 2026 11:00:00 GMT"),
                        Optional.empty()),
                Arguments.of("Retry-After garbage", Map.of("Retry-After", "soon"), Optional.empty()),
                Arguments.of("retry-after-ms wins over Retry-After",
                        Map.of("retry-after-ms", "250", "Retry-After", "7"), Optional.of(Duration.ofMillis(250))),
                Arguments.of("garbage retry-after-ms falls back to Retry-After",
                        Map.of("retry-after-ms", "later", "Retry-After", "3"), Optional.of(Duration.ofSeconds(3))));
    }

    /**
     * An error object sent with a 200 in place of the completion, in a stream's first event or as
     * a unary body: the provider's answer, classified by its type.
     */
    @Nested
    class InBandErrors {

        private static final String CONTEXT_LENGTH_EXCEEDED = "{\"error\":{\"message\":\"This model's maximum "
                + "context length is 8192 tokens\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
                + "\"code\":\"context_length_exceeded\"}}";

        private static final String OVERLOADED = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                + "\"message\":\"Overloaded\"}}";

        private LoopbackServer.Script errorEvent(String error) {
            return (connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + "event: error\ndata: " + error + "\n\n");
            };
        }

        @Test
        void aPermanentErrorBeforeAnyContentIsTheProvidersAnswerAndIsNotRetried() {
            for (int attempt = 0; attempt < POLICY.maxAttempts(); attempt++) {
                server.enqueue(errorEvent(CONTEXT_LENGTH_EXCEEDED));
            }

            assertThatExceptionOfType(ProviderErrorException.class)
                    .isThrownBy(() -> retrying().stream(REQUEST, CallContext.background()))
                    .withMessage("The provider sent an error in place of the completion: context_length_exceeded "
                            + "(invalid_request_error)")
                    .satisfies((ex) -> {
                        assertThat(ex.status()).isEqualTo(400);
                        assertThat(ex.code()).contains("context_length_exceeded");
                        assertThat(ex.type()).contains("invalid_request_error");
                        assertThat(ex.providerMessage()).contains("This model's maximum context length is 8192 tokens");
                        assertThat(ex.retryAfter()).isEmpty();
                    });
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void aTransientErrorBeforeAnyContentIsRetryable() {
            server.enqueue(errorEvent(OVERLOADED));

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.getCause()).isInstanceOf(ProviderErrorException.class)
                            .hasMessage("The provider sent an error in place of the completion: overloaded_error")
                            .extracting((cause) -> ((HttpStatusException) cause).status()).isEqualTo(503));
        }

        @Test
        void aTransientErrorBeforeAnyContentIsRetriedAndTheNextAttemptStreams() {
            server.enqueue(errorEvent(OVERLOADED));
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + DONE);
            });

            try (StreamReader reader = retrying().stream(REQUEST, CallContext.background())) {
                assertThat(reader.next().data()).isEqualTo("a");
                assertThat(reader.hasNext()).isFalse();
                assertThat(reader.result().attempts()).isEqualTo(2);
            }
        }

        @Test
        void anErrorAfterContentEndsTheStreamWithIt() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + "data: " + OVERLOADED + "\n\n");
            });

            try (StreamReader reader = retrying().stream(REQUEST, CallContext.background())) {
                assertThat(reader.next().data()).isEqualTo("a");
                assertThatExceptionOfType(ProviderErrorException.class).isThrownBy(reader::hasNext)
                        .withMessage("The provider sent an error in place of the completion: overloaded_error");
                assertThat(reader.result().failure()).get().isInstanceOf(ProviderErrorException.class);
                assertThat(reader.result().attempts()).isEqualTo(1);
            }
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void aUnaryErrorBodyWithA200IsTheProvidersAnswer() {
            server.enqueue(respond(200, Map.of("Content-Type", "application/json"), CONTEXT_LENGTH_EXCEEDED));

            assertThatExceptionOfType(ProviderErrorException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .withMessage("The provider sent an error in place of the completion: context_length_exceeded "
                            + "(invalid_request_error)")
                    .satisfies((ex) -> assertThat(ex.status()).isEqualTo(400));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.inference.sample.openai.OpenAiCompatibleClientTests#inBandErrors")
        void takesItsStatusFromTheProvidersStatusOrType(String error, int status) {
            server.enqueue(errorEvent("{\"error\":" + error + "}"));

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.getCause()).isInstanceOf(HttpStatusException.class)
                            .extracting((cause) -> ((HttpStatusException) cause).status()).isEqualTo(status));
        }

        @Test
        void keepsAMessageThatIsNotAnIdentifierOutOfItsOwn() {
            server.enqueue(errorEvent("{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"key sk-secret is "
                    + "wrong\",\"message\":\"You said: my password is hunter2\"}}"));

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.getCause()).hasMessage(
                            "The provider sent an error in place of the completion: invalid_request_error"));
        }

        @ParameterizedTest
        @ValueSource(strings = { "{\"error\":\"overloaded\"}", "{\"error\":null}", "{\"error\":[1]}" })
        void anErrorThatIsNotAnObjectIsAMalformedChunk(String chunk) {
            server.enqueue(errorEvent(chunk));

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.getCause()).isInstanceOf(NetworkException.class)
                            .hasMessage("The provider sent a stream chunk without a choices array"));
        }
    }

    static Stream<Arguments> inBandErrors() {
        return Stream.of(
                Arguments.of("{\"type\":\"server_error\",\"message\":\"oops\"}", 500),
                Arguments.of("{\"type\":\"api_error\",\"message\":\"Internal server error\"}", 500),
                Arguments.of("{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}", 503),
                Arguments.of("{\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}", 429),
                Arguments.of("{\"type\":\"rate_limit_error\",\"message\":\"Slow down\"}", 429),
                Arguments.of("{\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}", 400),
                Arguments.of("{\"type\":\"invalid_request_error\",\"code\":null}", 400),
                Arguments.of("{\"type\":\"authentication_error\"}", 401),
                Arguments.of("{\"type\":\"permission_error\"}", 403),
                Arguments.of("{\"type\":\"not_found_error\"}", 404),
                Arguments.of("{\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}", 400),
                Arguments.of("{\"message\":\"no type at all\"}", 400),
                Arguments.of("{\"type\":\"something_new\"}", 400),
                Arguments.of("{\"code\":429,\"message\":\"Resource exhausted\"}", 429),
                Arguments.of("{\"code\":503,\"status\":\"UNAVAILABLE\"}", 503),
                Arguments.of("{\"status\":502,\"type\":\"invalid_request_error\"}", 502),
                Arguments.of("{\"code\":200,\"type\":\"server_error\"}", 500));
    }

    @Nested
    class Credentials {

        @Test
        void asksTheAuthorizerOncePerCallAndSendsItsHeaders() {
            server.enqueue(completion("one"));
            server.enqueue(completion("two"));
            CountingAuthorizer authorizer = new CountingAuthorizer();
            CallContext context = CallContext.background().withAuthorizer(authorizer);

            client.invoke(REQUEST, context);
            client.invoke(REQUEST, context);

            assertThat(authorizer.calls.get()).isEqualTo(2);
            assertThat(server.requests()).extracting((request) -> request.header("Authorization"))
                    .containsExactly("Bearer token-1", "Bearer token-2");
            assertThat(server.requests()).extracting((request) -> request.header("X-Org")).containsOnly("acme");
        }

        @Test
        void asksTheAuthorizerOncePerAttemptOfARetriedCall() {
            server.enqueue(respond(429, Map.of(), ""));
            server.enqueue(completion("Hi"));
            CountingAuthorizer authorizer = new CountingAuthorizer();

            retrying().invoke(REQUEST, CallContext.background().withAuthorizer(authorizer));

            assertThat(authorizer.calls.get()).isEqualTo(2);
            assertThat(server.requests()).extracting((request) -> request.header("Authorization"))
                    .containsExactly("Bearer token-1", "Bearer token-2");
        }

        @Test
        void neverPutsCredentialsInFailureMessages() {
            server.enqueue(respond(401, Map.of(), "{\"error\":{\"message\":\"Bad key Bearer token-1\"}}"));
            CallContext context = CallContext.background().withAuthorizer(new CountingAuthorizer());

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST, context))
                    .withMessageNotContaining("token-1");
        }
    }

    @Nested
    class Errors {

        @Test
        void anErrorFromTheAuthorizerPropagatesAndLeavesNothingRegisteredWithTheContext() {
            AtomicInteger registered = new AtomicInteger();
            CallContext context = CallContext.cancellable().withAuthorizer(() -> {
                throw new SseStreamReaderTests.InjectedError();
            });
            context.onCancel(registered::incrementAndGet);

            assertThatExceptionOfType(SseStreamReaderTests.InjectedError.class)
                    .isThrownBy(() -> client.stream(REQUEST, context));
            assertThatExceptionOfType(SseStreamReaderTests.InjectedError.class)
                    .isThrownBy(() -> client.invoke(REQUEST, context));

            // Only the test's own action runs: every attempt withdrew its abort.
            context.cancel();
            assertThat(registered).hasValue(1);
            assertThat(server.requests()).isEmpty();
        }
    }

    static final class CountingAuthorizer implements Authorizer {

        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Map<String, String> authorize() {
            return Map.of("Authorization", "Bearer token-" + this.calls.incrementAndGet(), "X-Org", "acme");
        }
    }

    @Nested
    class Context {

        @Test
        void doneContextFailsWithoutSendingARequest() {
            CallContext context = CallContext.cancellable();
            context.cancel();

            assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> client.invoke(REQUEST, context))
                    .withMessage("The call was cancelled");
            assertThat(server.requests()).isEmpty();
        }

        @Test
        void passedDeadlineFailsWithoutSendingARequest() {
            CallContext context = CallContext.withTimeout(Duration.ZERO, CLOCK);

            assertThatExceptionOfType(DeadlineExceededException.class)
                    .isThrownBy(() -> client.stream(REQUEST, context));
            assertThat(server.requests()).isEmpty();
        }

        @Test
        void cancellingAbortsTheInFlightRequest() throws Exception {
            CompletableFuture<Void> closedByClient = stallingServer();
            CallContext context = CallContext.cancellable();
            CompletableFuture<InferenceResponse> call = CompletableFuture.supplyAsync(
                    () -> client.invoke(REQUEST, context));
            server.takeRequest();

            context.cancel();

            assertThatExceptionOfType(CompletionException.class).isThrownBy(call::join)
                    .havingCause().isInstanceOf(CancellationException.class)
                    .withMessage("The call was cancelled while waiting for the provider");
            closedByClient.get();
        }

        @Test
        void deadlineAbortsTheInFlightRequest() throws Exception {
            CompletableFuture<Void> closedByClient = stallingServer();
            CallContext context = CallContext.withTimeout(Duration.ofMillis(100), CLOCK);

            assertThatExceptionOfType(DeadlineExceededException.class)
                    .isThrownBy(() -> client.invoke(REQUEST, context))
                    .withMessage("The call's deadline passed while waiting for the provider");
            closedByClient.get();
        }

        private CompletableFuture<Void> stallingServer() {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.awaitClientClose();
                closedByClient.complete(null);
            });
            return closedByClient;
        }
    }

    /**
     * The caller's thread interrupted while it is blocked reading a body: the caller's
     * cancellation, whatever the body is.
     */
    @Nested
    class InterruptedWhileReadingABody {

        /** How long a call may take to end once interrupted before the test gives up on it. */
        private static final long ENDS_WITHIN_SECONDS = 10;

        /**
         * Makes a call on a thread of its own, waits until that thread is blocked in
         * {@code readingMethod} (and, when given, until the call says it is reading), interrupts it,
         * and returns how the call ended, once the client has closed the connection as well.
         */
        private <T> Interrupted callInterruptedWhileReading(String readingMethod, CountDownLatch reading,
                Callable<T> call, LoopbackServer.Script script) throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                script.play(connection);
                connection.awaitClientClose();
                closedByClient.complete(null);
            });
            CompletableFuture<Interrupted> ended = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                try {
                    call.call();
                    ended.complete(new Interrupted(null, Thread.currentThread().isInterrupted()));
                }
                catch (Exception ex) {
                    ended.complete(new Interrupted(ex, Thread.currentThread().isInterrupted()));
                }
            }, "interrupted-caller");
            caller.setDaemon(true);
            caller.start();
            assertThat(reading.await(ENDS_WITHIN_SECONDS, TimeUnit.SECONDS)).as("the call reached its read").isTrue();
            awaitBlockedIn(caller, readingMethod);

            caller.interrupt();

            try {
                Interrupted interrupted = ended.get(ENDS_WITHIN_SECONDS, TimeUnit.SECONDS);
                closedByClient.get(ENDS_WITHIN_SECONDS, TimeUnit.SECONDS);
                return interrupted;
            }
            catch (TimeoutException ex) {
                throw new AssertionError("The interrupted call did not end within " + ENDS_WITHIN_SECONDS
                        + "s; it is at " + Arrays.toString(caller.getStackTrace()), ex);
            }
        }

        private void awaitBlockedIn(Thread thread, String method) {
            BlockedThreads.awaitBlockedIn(thread, method, ENDS_WITHIN_SECONDS);
        }

        @Test
        void ofAUnaryResponseEndsTheCallWithACancellationAndKeepsTheInterrupt() throws Exception {
            Interrupted interrupted = callInterruptedWhileReading("readAllBytes", new CountDownLatch(0),
                    () -> client.invoke(REQUEST),
                    (connection) -> {
                        connection.readRequest();
                        connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 500\r\n\r\n{\"choices\":[");
                    });

            assertThat(interrupted.failure()).isInstanceOf(CancellationException.class)
                    .hasMessage("Interrupted while reading the provider's response");
            assertThat(interrupted.stillInterrupted()).isTrue();
        }

        @Test
        void ofAnErrorResponseEndsTheCallWithACancellationNotItsStatus() throws Exception {
            Interrupted interrupted = callInterruptedWhileReading("readNBytes", new CountDownLatch(0),
                    () -> client.invoke(REQUEST),
                    (connection) -> {
                        connection.readRequest();
                        connection.write("HTTP/1.1 503 Busy\r\nContent-Length: 500\r\n\r\n{\"error\":");
                    });

            assertThat(interrupted.failure()).isInstanceOf(CancellationException.class)
                    .hasMessage("Interrupted while reading the provider's response");
            assertThat(interrupted.stillInterrupted()).isTrue();
        }

        @Test
        void ofAStreamEndsTheStreamWithACancellationAndKeepsTheInterrupt() throws Exception {
            CountDownLatch reading = new CountDownLatch(1);
            Interrupted interrupted = callInterruptedWhileReading("hasNext", reading, () -> {
                try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                    reader.next();
                    reading.countDown();
                    return reader.hasNext();
                }
            }, (connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a"));
            });

            assertThat(interrupted.failure()).isInstanceOf(CancellationException.class)
                    .hasMessage("Interrupted while reading the provider's stream");
            assertThat(interrupted.stillInterrupted()).isTrue();
        }
    }

    /** How an interrupted call ended: what it threw, and whether its thread was still interrupted. */
    private record Interrupted(Exception failure, boolean stillInterrupted) {
    }

    /** OpenAI's rate-limit headers, which every answer carries, read into what the call returns or throws. */
    @Nested
    class RateLimits {

        private static final Map<String, String> EXHAUSTED = Map.of("Content-Type", "application/json",
                "x-ratelimit-limit-requests", "20", "x-ratelimit-remaining-requests", "0",
                "x-ratelimit-reset-requests", "1.25s", "x-ratelimit-remaining-tokens", "9000",
                "x-ratelimit-reset-tokens", "6m0s");

        @Test
        void saysHowLongAnExhaustedLimitLastsWithTheResponse() {
            server.enqueue(respond(200, EXHAUSTED, Http1.completionJson("Hi")));

            InferenceResponse response = client.invoke(REQUEST, CallContext.background());

            assertThat(response.output()).isEqualTo("Hi");
            assertThat(response.rateLimitedFor()).contains(Duration.ofMillis(1250));
        }

        @Test
        void saysNothingWhileRequestsAndTokensRemain() {
            server.enqueue(respond(200, Map.of("Content-Type", "application/json", "x-ratelimit-remaining-requests",
                    "1", "x-ratelimit-reset-requests", "1s"), Http1.completionJson("Hi")));

            assertThat(client.invoke(REQUEST, CallContext.background()).rateLimitedFor()).isEmpty();
        }

        @Test
        void saysHowLongAnExhaustedLimitLastsWithTheStream() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
                        + "x-ratelimit-remaining-tokens: 0\r\nx-ratelimit-reset-tokens: 2s\r\n\r\n" + chunk("Hi") + DONE);
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                assertThat(reader.rateLimitedFor()).contains(Duration.ofSeconds(2));
                assertThat(reader.next().data()).isEqualTo("Hi");
            }
        }

        @Test
        void saysHowLongAnExhaustedLimitLastsWithAStatusFailure() {
            server.enqueue(respond(503, EXHAUSTED, ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> client.invoke(REQUEST))
                    .satisfies((ex) -> assertThat(ex.rateLimitedFor()).contains(Duration.ofMillis(1250)));
        }
    }

    @Nested
    class Streams {

        @Test
        void readsTheTextOfEachChunkUntilDone() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
                        + chunk("Hel") + chunk("lo") + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                        + DONE);
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                assertThat(drain(reader)).containsExactly("Hel", "lo");
                assertThat(reader.hasNext()).isFalse();
                assertThat(reader.result()).isEqualTo(StreamResult.completed());
            }
            Http1.Request received = server.requests().get(0);
            assertThat(received.bodyText()).isEqualTo(STREAM_BODY);
            assertThat(received.header("Accept")).isEqualTo("text/event-stream");
        }

        @Test
        void followsTheServerSentEventsFormat() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + ": keep-alive\r\n\r\nevent: message\r\nid: 1\r\n"
                        + "data: {\"choices\":[{\"delta\":\r\ndata:{\"content\":\"a\"}}]}\r\n\r\n" + DONE);
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                assertThat(drain(reader)).containsExactly("a");
            }
        }

        @Test
        void resultIsUnavailableUntilTheStreamEnds() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + chunk("b") + DONE);
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                assertThatExceptionOfType(IllegalStateException.class).isThrownBy(reader::result)
                        .withMessage("The stream has not ended yet: read it until hasNext() returns false");
            }
        }

        @Test
        void cutMidStreamIsATerminalNetworkException() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + chunk("b"));
            });

            StreamReader reader = retrying().stream(REQUEST, CallContext.background());

            assertThat(reader.next().data()).isEqualTo("a");
            assertThat(reader.next().data()).isEqualTo("b");
            NetworkException failure = catchNetworkException(reader::hasNext);
            assertThat(failure).hasMessage("The stream ended before [DONE]").hasNoCause();
            assertThat(catchNetworkException(reader::next)).isSameAs(failure);
            assertThat(reader.result().failure()).containsSame(failure);
            assertThat(reader.result().attempts()).isEqualTo(1);
            reader.close();
            reader.close();
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void resetMidStreamIsATerminalNetworkException() {
            CompletableFuture<Void> firstChunkRead = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a"));
                // A reset discards what the client has not read yet: wait until the chunk is in.
                firstChunkRead.join();
                connection.reset();
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                firstChunkRead.complete(null);
                assertThat(reader.next().data()).isEqualTo("a");
                assertThat(catchNetworkException(reader::hasNext))
                        .hasMessage("The stream was cut before [DONE]").hasCauseInstanceOf(IOException.class);
            }
        }

        @Test
        void malformedChunkEndsTheStreamAndClosesTheConnection() throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + "data: {not json\n\n");
                connection.awaitClientClose();
                closedByClient.complete(null);
            });

            StreamReader reader = client.stream(REQUEST, CallContext.background());

            assertThat(reader.next().data()).isEqualTo("a");
            assertThat(catchNetworkException(reader::hasNext))
                    .hasMessage("The provider sent a stream chunk that is not valid JSON")
                    .hasCauseInstanceOf(JacksonException.class);
            closedByClient.get();
            assertThat(reader.result().failure()).isPresent();
        }

        @Test
        void chunkWithoutChoicesEndsTheStream() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + "data: {\"object\":\"chat.completion.chunk\"}\n\n");
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                reader.next();
                assertThat(catchNetworkException(reader::hasNext))
                        .hasMessage("The provider sent a stream chunk without a choices array");
            }
        }

        @Test
        void aLineLongerThanTheBoundBeforeAnyContentIsAHalfOpenTransitFailure() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + "data: {\"choices\":[{\"delta\":{\"content\":\""
                        + "x".repeat(ONE_MIB) + "\"}}]}\n\n" + DONE);
            });

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.getCause()).isInstanceOf(NetworkException.class)
                            .hasMessage("The provider sent a server-sent events line longer than 1048576 bytes"));
        }

        @Test
        void aLineLongerThanTheBoundAfterContentEndsTheStream() throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + "data: " + "x".repeat(2 * ONE_MIB) + "\n\n");
                connection.awaitClientClose();
                closedByClient.complete(null);
            });

            try (StreamReader reader = retrying().stream(REQUEST, CallContext.background())) {
                assertThat(reader.next().data()).isEqualTo("a");
                assertThat(catchNetworkException(reader::hasNext))
                        .hasMessage("The provider sent a server-sent events line longer than 1048576 bytes");
                assertThat(reader.result().attempts()).isEqualTo(1);
            }
            closedByClient.get();
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void anEventWhoseDataLinesAddUpToMoreThanTheBoundEndsTheStream() {
            String line = "data: " + "x".repeat(1000) + "\n";
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + line.repeat(ONE_MIB / 1000 + 1) + "\n"
                        + DONE);
            });

            try (StreamReader reader = client.stream(REQUEST, CallContext.background())) {
                assertThat(reader.next().data()).isEqualTo("a");
                assertThat(catchNetworkException(reader::hasNext))
                        .hasMessage("The provider sent a server-sent event whose data is longer than 1048576 bytes");
            }
        }

        @Test
        void errorStatusFailsEstablishmentWithItsDelay() {
            server.enqueue(respond(429, Map.of("retry-after-ms", "20"), ""));

            assertThatExceptionOfType(HttpStatusException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> assertThat(ex.retryAfter()).contains(Duration.ofMillis(20)));
        }

        @Test
        void firstReadFailingAfterA200IsHalfOpen() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD);
            });

            assertThatExceptionOfType(HalfOpenStreamException.class)
                    .isThrownBy(() -> client.stream(REQUEST, CallContext.background()))
                    .satisfies((ex) -> {
                        assertThat(ex.getCause()).isInstanceOf(NetworkException.class)
                                .hasMessage("The stream ended before [DONE]");
                        assertThat(ex.reader().result().failure()).containsSame(ex.getCause());
                    });
        }

        @Test
        void halfOpenStreamIsRetriedByTheDecorator() {
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD);
            });
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a") + DONE);
            });

            try (StreamReader reader = retrying().stream(REQUEST, CallContext.background())) {
                assertThat(drain(reader)).containsExactly("a");
                assertThat(reader.result().attempts()).isEqualTo(2);
            }
            assertThat(server.requests()).hasSize(2);
        }

        @Test
        void closingBeforeTheEndEndsTheStreamAndTheConnection() throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a"));
                connection.awaitClientClose();
                closedByClient.complete(null);
            });
            StreamReader reader = client.stream(REQUEST, CallContext.background());

            reader.close();

            closedByClient.get();
            assertThatExceptionOfType(CancellationException.class).isThrownBy(reader::hasNext)
                    .withMessage("The stream reader was closed before the stream ended");
            assertThat(reader.result().failure()).get().isInstanceOf(CancellationException.class);
        }

        @Test
        void cancellingMidStreamEndsTheStream() throws Exception {
            CompletableFuture<Void> closedByClient = new CompletableFuture<>();
            server.enqueue((connection) -> {
                connection.readRequest();
                connection.write(SSE_HEAD + chunk("a"));
                connection.awaitClientClose();
                closedByClient.complete(null);
            });
            CallContext context = CallContext.cancellable();
            StreamReader reader = client.stream(REQUEST, context);
            assertThat(reader.next().data()).isEqualTo("a");

            context.cancel();

            assertThatExceptionOfType(CancellationException.class).isThrownBy(reader::hasNext)
                    .withMessage("The call was cancelled while waiting for the provider");
            closedByClient.get();
            reader.close();
        }

        private List<String> drain(StreamReader reader) {
            List<String> texts = new ArrayList<>();
            while (reader.hasNext()) {
                StreamEvent event = reader.next();
                texts.add(event.data());
            }
            return texts;
        }

        private NetworkException catchNetworkException(Runnable read) {
            try {
                read.run();
            }
            catch (NetworkException ex) {
                return ex;
            }
            throw new AssertionError("Expected a NetworkException");
        }
    }

    @Nested
    class Building {

        @Test
        void appendsThePathToTheBaseUrl() {
            assertThat(OpenAiCompatibleClient.builder(URI.create("https://api.example.test/")).build().endpoint())
                    .hasToString("https://api.example.test/v1/chat/completions");
        }

        @ParameterizedTest
        @ValueSource(strings = { "ftp://host", "/relative", "http://host/?key=1", "http://host/#part" })
        void refusesABaseUrlThatIsNotAPlainHttpUrl(String baseUrl) {
            assertThatIllegalArgumentException().isThrownBy(() -> OpenAiCompatibleClient.builder(URI.create(baseUrl)))
                    .withMessage("baseUrl must be an absolute http or https URI without query or fragment, "
                            + "such as http://127.0.0.1:8081, was " + baseUrl);
        }

        @ParameterizedTest
        @ValueSource(longs = { 0, -1 })
        void refusesAResponseTimeoutThatIsNotPositive(long millis) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> OpenAiCompatibleClient.builder(URI.create("http://host"))
                            .responseTimeout(Duration.ofMillis(millis)))
                    .withMessage("responseTimeout must be positive, was " + Duration.ofMillis(millis));
        }
    }
}
