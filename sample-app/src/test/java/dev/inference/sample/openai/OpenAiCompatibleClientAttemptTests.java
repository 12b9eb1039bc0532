package dev.inference.sample.openai;

import static dev.inference.sample.openai.LoopbackServer.SSE_HEAD;
import static dev.inference.sample.openai.LoopbackServer.chunk;
import static dev.inference.sample.openai.LoopbackServer.respond;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tests for {@link OpenAiCompatibleClient} under an attempt's own context (SPEC §11), and for the
 * provider's {@code x-should-retry}, over real loopback sockets.
 *
 * <p>Known limit of the JDK's {@code HttpClient} (seen on Java 17 and 25): an abort that races with
 * the arrival of the response's headers cancels the exchange's future but, a few times in a hundred,
 * leaves its connection open. An attempt abandoned while the provider sends nothing (a hang) or
 * while its reader waits for content (keep-alives only) closes its connection every time, which is
 * what these tests pin.
 */
// A guard against a hang, not a timing assertion: every test here finishes in well under a second.
@Timeout(30)
class OpenAiCompatibleClientAttemptTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Hello");

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Retries at once: the tests count attempts, they do not wait for them. */
    private static final Policy POLICY = new Policy(1, Duration.ofMillis(1), 3, Duration.ofMillis(1));

    private final ManualTimer timer = new ManualTimer();

    private LoopbackServer server;

    private OpenAiCompatibleClient client;

    @BeforeEach
    void startServer() {
        this.server = LoopbackServer.start();
        this.client = OpenAiCompatibleClient.builder(this.server.baseUrl()).build();
    }

    @AfterEach
    void stopServer() throws IOException {
        this.server.close();
    }

    /** Holds the one action an attempt scheduled; the test fires it, in place of time passing. */
    static final class ManualTimer implements AttemptScope.Timer {

        private final AtomicReference<Runnable> scheduled = new AtomicReference<>();

        @Override
        public CallContext.Registration schedule(Duration delay, Runnable action) {
            this.scheduled.set(action);
            return () -> this.scheduled.set(null);
        }

        void fire() {
            Runnable action = this.scheduled.getAndSet(null);
            assertThat(action).as("a scheduled timeout").isNotNull();
            action.run();
        }
    }

    /** Reads the request, then holds the connection until the client closes it, which completes the future. */
    private CompletableFuture<Void> hangingServer(String... sentFirst) {
        CompletableFuture<Void> closedByClient = new CompletableFuture<>();
        this.server.enqueue((connection) -> {
            connection.readRequest();
            for (String text : sentFirst) {
                connection.write(text);
            }
            connection.awaitClientClose();
            closedByClient.complete(null);
        });
        return closedByClient;
    }

    @Nested
    class AbandonedByItsTimeout {

        @Test
        void aUnaryRequestIsAbortedAndItsConnectionClosed() throws Exception {
            CompletableFuture<Void> closedByClient = hangingServer();
            CallContext caller = CallContext.cancellable();
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            CompletableFuture<InferenceResponse> call = CompletableFuture
                .supplyAsync(() -> client.invoke(REQUEST, attempt.context()));
            server.takeRequest();

            timer.fire();

            RuntimeException thrown = (RuntimeException) assertThatExceptionOfType(CompletionException.class)
                .isThrownBy(call::join)
                .actual()
                .getCause();
            assertThat(thrown).isInstanceOf(CancellationException.class);
            assertThat(attempt.failureFor(thrown)).isInstanceOf(AttemptTimeoutException.class);
            closedByClient.get();
            assertThat(caller.isDone()).isFalse();
        }

        /**
         * The timer fires once the stream's headers are in and the reader waits for content. (A
         * cancel that races with the headers' arrival can leave the JDK client's connection open:
         * see the class comment.)
         */
        @Test
        void aStreamThatSendsOnlyKeepAlivesIsAbortedBeforeItsReaderIsReturned() throws Exception {
            CompletableFuture<Void> closedByClient = hangingServer(SSE_HEAD, ": keep-alive\n\n");
            AttemptScope attempt = CallContext.cancellable().startAttempt(TIMEOUT, timer);
            CompletableFuture<RuntimeException> ended = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                try {
                    client.stream(REQUEST, attempt.context()).close();
                    ended.complete(null);
                }
                catch (RuntimeException ex) {
                    ended.complete(ex);
                }
            }, "first-token-caller");
            caller.setDaemon(true);
            caller.start();
            BlockedThreads.awaitBlockedIn(caller, "nextBuffer", 10);

            timer.fire();

            assertThat(attempt.failureFor(ended.get())).isInstanceOf(AttemptTimeoutException.class);
            closedByClient.get();
        }
    }

    @Nested
    class CancelledByItsOwner {

        @Test
        void anEstablishedStreamEndsAndItsConnectionCloses() throws Exception {
            CompletableFuture<Void> closedByClient = hangingServer(SSE_HEAD, chunk("Hi"));
            AttemptScope attempt = CallContext.cancellable().startAttempt();
            StreamReader reader = client.stream(REQUEST, attempt.context());
            assertThat(reader.next().data()).isEqualTo("Hi");

            attempt.cancel();

            assertThatExceptionOfType(CancellationException.class).isThrownBy(reader::hasNext);
            closedByClient.get();
            reader.close();
        }
    }

    @Nested
    class ShouldRetry {

        private RetryClient retrying() {
            return RetryClient.of(client, Retrier.builder(POLICY).sleeper((delay, context) -> {
            }).build());
        }

        @ParameterizedTest(name = "HTTP {0}")
        @ValueSource(ints = { 429, 500, 503 })
        void falseMakesARetryableStatusPermanent(int status) {
            server.enqueue(respond(status, Map.of("x-should-retry", "false"), ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> retrying().invoke(REQUEST))
                .satisfies((ex) -> {
                    assertThat(ex.status()).isEqualTo(status);
                    assertThat(ex.retryRefused()).isTrue();
                });
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void falseMakesAStreamsRetryableStatusPermanent() {
            server.enqueue(respond(503, Map.of("x-should-retry", "false"), ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> retrying().stream(REQUEST));
            assertThat(server.requests()).hasSize(1);
        }

        @Test
        void trueLeavesARetryableStatusRetried() {
            for (int i = 0; i < 3; i++) {
                server.enqueue(respond(503, Map.of("x-should-retry", "true"), ""));
            }

            assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> retrying().invoke(REQUEST));
            assertThat(server.requests()).hasSize(3);
        }

        @Test
        void trueLeavesAPermanentStatusPermanent() {
            server.enqueue(respond(400, Map.of("x-should-retry", "true"), ""));

            assertThatExceptionOfType(HttpStatusException.class).isThrownBy(() -> retrying().invoke(REQUEST))
                .satisfies((ex) -> assertThat(ex.retryRefused()).isFalse());
            assertThat(server.requests()).hasSize(1);
        }
    }
}
