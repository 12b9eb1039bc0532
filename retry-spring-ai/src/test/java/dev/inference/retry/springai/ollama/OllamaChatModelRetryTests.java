package dev.inference.retry.springai.ollama;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.inference.retry.springai.Await.assertHolds;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.RetryTags;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.ChatModelRetryContract;
import dev.inference.retry.springai.CutStreamServer;
import dev.inference.retry.springai.OllamaWire;
import dev.inference.retry.springai.RecordingRetryEvents;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.SpringAiStarters;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.ai.document.Document;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Spring AI 2.0.1's real Ollama model, auto-configured as an application gets it, against a provider
 * speaking Ollama's wire format on a loopback port: its chat exchanges are retried beneath the bean, one
 * attempt each at Spring AI's level, while the models it does not wrap keep what Spring AI gives them.
 * Its calls do what every retried model's do ({@link ChatModelRetryContract}); its stream is JSON lines
 * over a {@code WebClient}, retried on Reactor's timer, and tested here.
 */
class OllamaChatModelRetryTests extends ChatModelRetryContract {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OllamaWire.CHAT);

    @Override
    protected ScriptedProvider provider() {
        return provider;
    }

    @Override
    protected String beanName() {
        return "ollamaChatModel";
    }

    /** Spring AI's shared retries are on, as the unwrapped models get them, with two retries of 10 ms. */
    @Override
    protected ApplicationContextRunner runnerAgainst(int port) {
        return SpringAiStarters.ollama("http://127.0.0.1:" + port)
            .withPropertyValues("spring.ai.ollama.init.pull-model-strategy=never", "spring.ai.retry.max-attempts=2",
                    "spring.ai.retry.backoff.initial-interval=10ms", "spring.ai.retry.backoff.max-interval=10ms");
    }

    @Override
    protected ResponseDefinitionBuilder completion(String content) {
        return OllamaWire.chat(content);
    }

    @Override
    protected ResponseDefinitionBuilder stream(String... contents) {
        return OllamaWire.stream(contents);
    }

    /** Ollama's errors say only a message: the type is left out. */
    @Override
    protected String errorBody(String type, String message) {
        return OllamaWire.errorBody(message);
    }

    /** Never sent: Ollama's errors have no type (see {@link #errorBody}). */
    @Override
    protected String serverErrorType() {
        return "server_error";
    }

    @Override
    public ResponseDefinitionBuilder error(int status, String type, String message) {
        return OllamaWire.error(status, message);
    }

    /** Spring AI's exceptions, which its error handler throws from the response's status and body. */
    @Override
    protected Class<? extends RuntimeException> serverErrorException() {
        return TransientAiException.class;
    }

    @Override
    protected Class<? extends RuntimeException> badRequestException() {
        return NonTransientAiException.class;
    }

    /** Spring AI says the status and the whole error body. */
    @Override
    protected String thrownMessage(int status, String errorBody) {
        return "HTTP " + status + " - " + errorBody;
    }

    /** {@code first-token-timeout} on the stream's {@code WebClient} exchange. */
    @Nested
    class FirstTokenTimeout {

        private static final Duration TIMEOUT = Duration.ofMillis(1_500);

        @Test
        void abandonsAStreamWhoseFirstLineIsLateAndRetriesIt() {
            provider().script(OllamaWire.stream("Hel", "lo").withFixedDelay(10_000), OllamaWire.stream("Hel", "lo"));
            runWith((retrier) -> retrier.timeouts(Timeouts.none().withFirstToken(TIMEOUT)), (context) -> {
                long start = System.nanoTime();

                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(20));

                assertThat(String.join("", Objects.requireNonNull(chunks))).isEqualTo("Hello");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT)
                    .isLessThan(Duration.ofSeconds(10));
                assertThat(events().finished()).extracting((finished) -> RetryTags.error(finished.event()))
                    .containsExactly("attempt_timeout", RetryTags.NO_ERROR);
                assertThat(provider().requests()).isEqualTo(2);
            });
        }
    }

    /** Ollama's own in a call: its {@code RestClient}'s connection failures, Spring AI's retries kept to one. */
    @Nested
    class CallThroughRestClient {

        @Test
        void makesOneAttemptAtSpringAisLevelForAFailureSpringAiWouldRetry() {
            provider.always(OllamaWire.error(400, "invalid request"));
            // Spring AI's shared RetryTemplate retries 400 now: the model left unwrapped would make 3 requests.
            ApplicationContextRunner retrying400 = runnerAgainst(provider.port())
                .withPropertyValues("spring.ai.retry.on-http-codes=400");
            runRetried(retrying400, (context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(TransientAiException.class)
                    .hasMessage("HTTP 400 - {\"error\":\"invalid request\"}");
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void retriesAConnectionResetBeforeTheResponse() {
            provider.script(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER), OllamaWire.chat("Hello"));
            run((context) -> {
                assertThat(context.getBean(OllamaChatModel.class).call("Hi")).isEqualTo("Hello");
                assertThat(provider.requests()).isEqualTo(2);
            });
        }

        /** A connection reset before the response, or a body broken before its end. */
        @ParameterizedTest
        @EnumSource(value = Fault.class, names = { "CONNECTION_RESET_BY_PEER", "MALFORMED_RESPONSE_CHUNK" })
        void givesUpOnNetworkFailuresWithTheFailureAsTheClientThrowsItAsTheCause(Fault fault) {
            provider.always(aResponse().withFault(fault));
            run((context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.getCause()).isInstanceOf(ResourceAccessException.class)
                            .hasMessageStartingWith("I/O error on POST request for \"http://127.0.0.1:" + provider.port()
                                    + "/api/chat\": ")
                            .cause()
                            .isInstanceOf(NetworkException.class));
                assertThat(provider.requests()).isEqualTo(3);
            });
        }
    }

    @Nested
    class JsonLinesStream {

        @AfterEach
        void restoreSchedulers() {
            VirtualTimeScheduler.reset();
        }

        @Test
        void retriesAStreamThatFailedBeforeItsFirstChunkAndDeliversEveryChunkOnce() {
            provider.script(OllamaWire.error(503, "server busy"), OllamaWire.stream("Hel", "lo", " there"));
            run((context) -> {
                List<String> chunks = context.getBean(OllamaChatModel.class).stream("Hi").collectList()
                    .block(Duration.ofSeconds(10));

                assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo", " there");
                assertThat(provider.requests()).isEqualTo(2);
                assertThat(events().finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.STREAM);
            });
        }

        @Test
        void retriesAConnectionResetBeforeTheResponse() {
            provider.script(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER), OllamaWire.stream("Hello"));
            run((context) -> {
                List<String> chunks = context.getBean(OllamaChatModel.class).stream("Hi").collectList()
                    .block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(provider.requests()).isEqualTo(2);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheFailureAsWebClientSignalsItAsTheCause() {
            provider.always(OllamaWire.error(503, "server busy"));
            run((context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                        assertThat(ex.attempts()).isEqualTo(3);
                        assertThat(ex.getCause()).isInstanceOf(WebClientResponseException.ServiceUnavailable.class)
                            .cause()
                            .isInstanceOf(HttpStatusException.class);
                    });
                assertThat(provider.requests()).isEqualTo(3);
            });
        }

        @Test
        void givesUpOnBodiesThatBrokeBeforeTheirFirstLineWithTheFailureAsWebClientSignalsItAsTheCause() {
            provider.always(aResponse().withFault(Fault.MALFORMED_RESPONSE_CHUNK));
            run((context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                        assertThat(ex.attempts()).isEqualTo(3);
                        assertThat(ex.getCause()).isInstanceOf(WebClientResponseException.class)
                            .hasMessageStartingWith("200 OK from POST http://127.0.0.1:" + provider.port() + "/api/chat")
                            .cause()
                            .isInstanceOf(NetworkException.class);
                    });
                assertThat(provider.requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsWebClientSignalsIt() {
            provider.always(OllamaWire.error(400, "invalid request"));
            run((context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(WebClientResponseException.BadRequest.class,
                            (ex) -> assertThat(ex.getResponseBodyAsString()).isEqualTo("{\"error\":\"invalid request\"}"));
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void deliversTheFailureOfAStreamCutAfterItsFirstChunkWithoutRetrying() throws Exception {
            try (CutStreamServer cutting = new CutStreamServer(OllamaWire.chunk("Hel"), OllamaWire.NDJSON)) {
                runAgainst(cutting.port(), (context) -> {
                    List<String> received = new CopyOnWriteArrayList<>();
                    assertThatThrownBy(() -> context.getBean(OllamaChatModel.class)
                        .stream("Hi")
                        .doOnNext(received::add)
                        .blockLast(Duration.ofSeconds(10))).isInstanceOf(WebClientResponseException.class)
                        .isNotInstanceOf(ExhaustedException.class);

                    assertThat(received).containsExactly("Hel");
                    assertThat(cutting.requests()).isEqualTo(1);
                });
            }
        }

        @Test
        void waitsOutTheCappedProviderWaitOnATimerAndThenRetries() {
            provider.script(rateLimited("3600"), OllamaWire.stream("Hello"));
            VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
            run((context) -> {
                List<String> received = new CopyOnWriteArrayList<>();
                context.getBean(OllamaChatModel.class).stream("Hi").subscribe(received::add);
                awaitTrue(() -> !events().scheduled().isEmpty());

                assertThat(events().scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                // A minute at a time, from the scheduling on: the next attempt starts once five have passed.
                awaitTrue(() -> {
                    if (events().started().size() < 2) {
                        time.advanceTimeBy(Duration.ofMinutes(1));
                    }
                    return events().started().size() == 2;
                });

                assertThat(time.now(TimeUnit.MINUTES)).isGreaterThanOrEqualTo(5);
                awaitTrue(() -> String.join("", received).equals("Hello"));
                assertThat(provider.requests()).isEqualTo(2);
            });
        }

        @Test
        void endsTheWaitAndMakesNoFurtherRequestWhenTheSubscriptionIsDisposed() {
            provider.always(rateLimited("3600"));
            VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
            run((context) -> {
                Disposable subscription = context.getBean(OllamaChatModel.class).stream("Hi").subscribe();
                awaitTrue(() -> !events().scheduled().isEmpty());

                assertThat(events().scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                subscription.dispose();

                // Had the wait outlived the subscription, its timer would fire as the clock runs on, and the
                // next attempt would start.
                assertHolds(() -> {
                    time.advanceTimeBy(Duration.ofMinutes(10));
                    return events().started().size() == 1 && provider.requests() == 1;
                }, Duration.ofMillis(500));
            });
        }

        @Test
        void endsAnAttemptInFlightAndMakesNoFurtherRequestWhenTheSubscriptionIsDisposed() {
            provider.always(OllamaWire.stream("Hello").withFixedDelay(3000));
            run((context) -> {
                Disposable subscription = context.getBean(OllamaChatModel.class).stream("Hi").subscribe();
                awaitTrue(() -> provider.requests() == 1);

                long disposed = System.nanoTime();
                subscription.dispose();
                awaitTrue(() -> !events().finished().isEmpty(), PROMPT.plus(MARGIN));

                assertThat(Duration.ofNanos(events().finished().get(0).nanos() - disposed))
                    .isLessThan(PROMPT.plus(MARGIN));
                assertThat(events().finished().get(0).event().failure()).isInstanceOf(CancellationException.class);
                assertThat(events().finished().get(0).event().retryable()).isFalse();
                assertHolds(() -> provider.requests() == 1, Duration.ofMillis(500));
            });
        }
    }

    @Nested
    class ModelsLeftUnwrapped {

        @Test
        void aChatModelWithoutARetrierKeepsSpringAisRetriesAndExceptions() {
            provider.always(OllamaWire.error(503, "server busy"));
            ApplicationContextRunner unretried = runnerAgainst(provider.port())
                .withBean(ModelRetriers.class, () -> (name) -> Optional.empty());
            unretried.run((context) -> {
                assertThat(context).hasNotFailed();
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThat(OllamaChatModelRebuild.isRetried(model)).isFalse();
                assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(TransientAiException.class)
                    .hasMessage("HTTP 503 - {\"error\":\"server busy\"}");
                // spring.ai.retry.max-attempts=2: Spring AI's own first attempt and two retries.
                assertThat(provider.requests()).isEqualTo(3);
                assertThat(events().finished()).isEmpty();
            });
        }

        @Test
        void theEmbeddingModelKeepsItsSingleRequestAndSpringAisException() {
            provider.stubFor(post(urlEqualTo(OllamaWire.EMBED)).willReturn(OllamaWire.error(503, "server busy")));
            run((context) -> {
                OllamaEmbeddingModel embeddings = context.getBean(OllamaEmbeddingModel.class);

                assertThatThrownBy(() -> embeddings.embed(new Document("text")))
                    .isInstanceOf(TransientAiException.class)
                    .hasMessage("HTTP 503 - {\"error\":\"server busy\"}")
                    .hasNoCause();
                // Spring AI 2.0.1's embedding model retries nothing of its own, and nothing is added to it.
                assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo(OllamaWire.EMBED)).build())
                    .getCount()).isEqualTo(1);
                assertThat(events().finished()).isEmpty();
            });
        }

        @Test
        void theEmbeddingModelStillEmbeds() {
            provider.stubFor(post(urlEqualTo(OllamaWire.EMBED)).willReturn(OllamaWire.embeddings()));
            run((context) -> {
                float[] embedding = context.getBean(OllamaEmbeddingModel.class).embed("text");

                assertThat(embedding).containsExactly(0.1f, 0.2f, 0.3f);
                assertThat(events().finished()).isEmpty();
            });
        }
    }
}
