package dev.inference.retry.springai.timeouts;

import static dev.inference.retry.springai.Await.awaitTrue;
import static dev.inference.retry.springai.timeouts.TimedModels.BACKOFF;
import static dev.inference.retry.springai.timeouts.TimedModels.MARGIN;
import static dev.inference.retry.springai.timeouts.TimedModels.TIMEOUT;
import static dev.inference.retry.springai.timeouts.TimedModels.assertAnsweredAfterOneHungAttempt;
import static dev.inference.retry.springai.timeouts.TimedModels.assertStreamEndsStalled;
import static dev.inference.retry.springai.timeouts.TimedModels.streamed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.MeterRetryListener;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.AnthropicWire;
import dev.inference.retry.springai.MeterCounts;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.SpringAiStarters;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import dev.inference.retry.springai.testing.SseScriptServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.internal.connection.RealCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * The timeouts of SPEC §11 on the exchanges of the two Stainless SDKs' models, OpenAI's and Anthropic's
 * chat, auto-configured as an application gets them, against a loopback provider that hangs, sends only
 * keep-alives, or stalls: an attempt past its timeout is abandoned (its connection closed by the client)
 * and retried on the backoff schedule.
 */
class SdkExchangeTimeoutsTests {

    private static final Duration KEEP_ALIVE_EVERY = Duration.ofMillis(50);

    private final SseScriptServer server = SseScriptServer.start();

    /**
     * Loads what the first exchange of each model loads, once for the class and with no timeout: on a
     * busy machine a cold first exchange may take longer than the timeouts tested.
     */
    @BeforeAll
    static void warmUp() {
        try (SseScriptServer warm = SseScriptServer.start()) {
            warm.enqueue((exchange) -> exchange.json(200, Map.of(), OpenAiWire.completion("Hello")),
                    (exchange) -> exchange.sse().data(OpenAiWire.chunk("Hello")).data("[DONE]"),
                    (exchange) -> exchange.json(200, Map.of(), AnthropicWire.message("Hello")));
            TimedModels.run(SpringAiStarters.openAi(warm.baseUrl().toString()), "openAiChatModel", Timeouts.none(),
                    (context) -> {
                        context.getBean("openAiChatModel", ChatModel.class).call("Hi");
                        streamed(context.getBean("openAiChatModel", StreamingChatModel.class));
                    });
            TimedModels.run(SpringAiStarters.anthropic(warm.baseUrl().toString()), "anthropicChatModel",
                    Timeouts.none(), (context) -> context.getBean("anthropicChatModel", ChatModel.class).call("Hi"));
        }
    }

    @AfterEach
    void stopServer() {
        this.server.close();
    }

    @Nested
    class OpenAiCall {

        @Test
        void abandonsEachHungAttemptAtItsTimeoutAndGivesUpAfterMaxAttempts() {
            server.enqueue(OpenAiCall::answer, SseScriptServer.Exchange::hang, SseScriptServer.Exchange::hang,
                    SseScriptServer.Exchange::hang);
            openAi(Timeouts.none().withAttempt(TIMEOUT), (context) -> {
                ChatModel model = context.getBean("openAiChatModel", ChatModel.class);
                // The first exchange of a context loads classes: a busy machine may take longer than the timeout.
                model.call("Warm up");
                long start = System.nanoTime();

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOfSatisfying(AttemptTimeoutException.class,
                            (timeout) -> assertThat(timeout.timeout()).isEqualTo(TIMEOUT));
                });
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                assertThat(took).isGreaterThanOrEqualTo(TIMEOUT.multipliedBy(3))
                    .isLessThan(TIMEOUT.multipliedBy(3).plus(BACKOFF.multipliedBy(2)).plus(MARGIN));
                assertThat(server.requestCount()).isEqualTo(1 + 3);
                awaitTrue(() -> server.closedByClient() == 3);
            });
        }

        @Test
        void succeedsOnTheAttemptAfterAHang() {
            server.enqueue(SseScriptServer.Exchange::hang, OpenAiCall::answer);
            openAi(Timeouts.none().withAttempt(TIMEOUT), (context) -> {
                String answer = context.getBean("openAiChatModel", ChatModel.class).call("Hi");

                assertThat(answer).isEqualTo("Hello");
                assertThat(server.requestCount()).isEqualTo(2);
            });
        }

        @Test
        void makesMoreConcurrentCallsThanOkHttpsDispatcherRunsOnTheirCallersThreads() throws Exception {
            // Spring AI's dispatcher runs 64 calls at a time (OkHttp's default, per host too); one more, queued,
            // would reach the server only once another had its answer.
            int calls = 64 + 1;
            CountDownLatch arrived = new CountDownLatch(calls);
            SseScriptServer.Script answerOnceAllHaveArrived = (exchange) -> {
                arrived.countDown();
                try {
                    if (!arrived.await(20, TimeUnit.SECONDS)) {
                        exchange.hang();
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IOException(ex);
                }
                answer(exchange);
            };
            server.enqueue(OpenAiCall::answer);
            for (int i = 0; i < calls; i++) {
                server.enqueue(answerOnceAllHaveArrived);
            }
            openAi(Timeouts.none().withAttempt(Duration.ofSeconds(5)), (context) -> {
                ChatModel model = context.getBean("openAiChatModel", ChatModel.class);
                model.call("Warm up");
                ExecutorService callers = Executors.newFixedThreadPool(calls);
                try {
                    List<Future<String>> answers = new ArrayList<>();
                    for (int i = 0; i < calls; i++) {
                        answers.add(callers.submit(() -> model.call("Hi")));
                    }

                    for (Future<String> answer : answers) {
                        assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo("Hello");
                    }
                }
                finally {
                    callers.shutdownNow();
                }
                assertThat(server.requestCount()).isEqualTo(1 + calls);
            });
        }

        private static void answer(SseScriptServer.Exchange exchange) throws IOException {
            exchange.json(200, Map.of(), OpenAiWire.completion("Hello"));
        }
    }

    @Nested
    class OpenAiStream {

        @Test
        void retriesAStreamThatSendsOnlyKeepAlivesPastItsFirstTokenTimeout() {
            server.enqueue((exchange) -> {
                exchange.sse().data(OpenAiWire.chunk(""));
                while (true) {
                    exchange.comment("keep-alive").pause(KEEP_ALIVE_EVERY);
                }
            }, SdkExchangeTimeoutsTests::openAiHello);
            openAi(Timeouts.none().withFirstToken(TIMEOUT), (context) -> {
                long start = System.nanoTime();

                String answer = streamed(context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT);
                assertThat(server.requestCount()).isEqualTo(2);
                awaitTrue(() -> server.closedByClient() == 1);
            });
        }

        @Test
        void retriesAStreamOfKeepAlivesAtItsFirstTokenTimeoutWhenAShorterIdleTimeoutIsSetToo() {
            Duration firstToken = TIMEOUT.multipliedBy(2);
            server.enqueue((exchange) -> {
                exchange.sse().data(OpenAiWire.chunk(""));
                while (true) {
                    exchange.comment("keep-alive").pause(KEEP_ALIVE_EVERY);
                }
            }, SdkExchangeTimeoutsTests::openAiHello);
            openAi(Timeouts.none().withFirstToken(firstToken).withStreamIdle(TIMEOUT), (context) -> {
                long start = System.nanoTime();

                String answer = streamed(context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(firstToken);
                assertThat(server.requestCount()).isEqualTo(2);
            });
        }

        @Test
        void abandonsAStreamWhoseResponseNeverBeginsAtItsFirstTokenTimeoutAndSucceedsOnTheNext() {
            server.enqueue(SdkExchangeTimeoutsTests::openAiHello, SseScriptServer.Exchange::hang,
                    SdkExchangeTimeoutsTests::openAiHello);
            openAi(Timeouts.none().withFirstToken(TIMEOUT), (context) -> assertAnsweredAfterOneHungAttempt(server,
                    (prompt) -> streamed(context.getBean("openAiChatModel", StreamingChatModel.class)), "Hi",
                    (answer) -> assertThat(answer).isEqualTo("Hello")));
        }

        @Test
        void leavesAnEstablishedStreamToItsReaderOnceItsFirstTokenHasCome() {
            server.enqueue((exchange) -> exchange.sse()
                .data(OpenAiWire.chunk("Hel"))
                .pause(TIMEOUT.multipliedBy(2))
                .data(OpenAiWire.chunk("lo"))
                .data("[DONE]"));
            openAi(Timeouts.none().withFirstToken(TIMEOUT), (context) -> {
                String answer = streamed(context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(server.requestCount()).isEqualTo(1);
            });
        }
    }

    @Nested
    class OpenAiStalledStream {

        @Test
        void endsAStreamSilentPastItsIdleTimeoutAfterTheTokensSentWithoutRetrying() {
            server.enqueue((exchange) -> exchange.sse().data(OpenAiWire.chunk("Hel")).hang());
            openAi(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                List<String> received = assertStreamEndsStalled(server,
                        context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(received).containsExactly("Hel");
            });
        }

        @Test
        void endsAStreamSilentPastItsIdleTimeoutWhenALongerFirstTokenTimeoutIsSetToo() {
            server.enqueue((exchange) -> exchange.sse().data(OpenAiWire.chunk("Hel")).hang());
            openAi(Timeouts.none().withFirstToken(TIMEOUT.multipliedBy(3)).withStreamIdle(TIMEOUT), (context) -> {
                List<String> received = assertStreamEndsStalled(server,
                        context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(received).containsExactly("Hel");
            });
        }

        @Test
        void countsKeepAlivesAsSilence() {
            server.enqueue((exchange) -> {
                exchange.sse().data(OpenAiWire.chunk("Hel"));
                while (true) {
                    exchange.comment("keep-alive").pause(KEEP_ALIVE_EVERY);
                }
            });
            openAi(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                Throwable thrown = catchThrowable(() -> context.getBean("openAiChatModel", StreamingChatModel.class)
                    .stream("Hi")
                    .blockLast(Duration.ofSeconds(20)));

                assertThat(thrown).isInstanceOf(StreamStalledException.class);
                assertThat(server.requestCount()).isOne();
            });
        }

        @Test
        void leavesAStreamWhoseEventsComeWithinTheIdleTimeout() {
            server.enqueue((exchange) -> exchange.sse()
                .data(OpenAiWire.chunk("Hel"))
                .pause(TIMEOUT.dividedBy(2))
                .data(OpenAiWire.chunk("lo"))
                .pause(TIMEOUT.dividedBy(2))
                .data("[DONE]"));
            openAi(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                String answer = streamed(context.getBean("openAiChatModel", StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
            });
        }
    }

    /**
     * The application as the starter configures it, meters included: a Spring AI stream that stalls is
     * counted, and the Spring AI models share the retry auto-configuration's one timer.
     */
    @Nested
    class Starter {

        @Test
        void countsAStalledStreamOfASpringAiModelUnderItsBeanName() {
            server.enqueue((exchange) -> exchange.sse().data(OpenAiWire.chunk("Hel")).hang());
            starter().withPropertyValues("inference.retry.stream-idle-timeout=" + TIMEOUT.toMillis() + "ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(stalled(registry)).isZero();

                    Throwable thrown = catchThrowable(() -> context.getBean("openAiChatModel", StreamingChatModel.class)
                        .stream("Hi")
                        .blockLast(Duration.ofSeconds(20)));

                    assertThat(thrown).isInstanceOf(StreamStalledException.class);
                    assertThat(stalled(registry)).isOne();
                });
        }

        @Test
        void givesTheSpringAiModelsTheTimerOfEveryRetriedBean() {
            starter().run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RetryTimer.class));
        }

        private ApplicationContextRunner starter() {
            return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class,
                        ToolCallingAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
                        InferenceRetryMetricsAutoConfiguration.class, SpringAiModelRetriersAutoConfiguration.class,
                        SpringAiRetryAutoConfiguration.class))
                .withPropertyValues("spring.ai.openai.base-url=" + server.baseUrl() + "/v1",
                        "spring.ai.openai.api-key=test", "spring.ai.openai.chat.max-retries=0",
                        "inference.retry.stable-retries=0", "inference.retry.stable-delay=50ms",
                        "inference.retry.max-attempts=3", "inference.retry.max-delay=50ms");
        }

        private static double stalled(MeterRegistry registry) {
            return MeterCounts.count(registry.find(MeterRetryListener.STREAMS_STALLED).tag("client", "openAiChatModel"));
        }
    }

    @Nested
    class OpenAiEmbedding {

        @Test
        void abandonsAHungSubBatchAttemptAndSucceedsOnTheNext() {
            SseScriptServer.Script embeddings = (exchange) -> exchange.json(200, Map.of(), OpenAiWire.embeddings());
            server.enqueue(embeddings, SseScriptServer.Exchange::hang, embeddings);
            TimedModels.run(SpringAiStarters.openAiEmbedding(server.baseUrl().toString()), "openAiEmbeddingModel",
                    Timeouts.none().withAttempt(TIMEOUT),
                    (context) -> assertAnsweredAfterOneHungAttempt(server,
                            context.getBean("openAiEmbeddingModel", EmbeddingModel.class)::embed, "Hello",
                            (embedding) -> assertThat(embedding).isNotEmpty()));
        }
    }

    /**
     * 200 attempts abandoned one after the other leave no connection in the OkHttp pool and no thread
     * behind them.
     */
    @Nested
    class Leaks {

        private static final int ABANDONED = 200;

        private static final Duration SHORT = Duration.ofMillis(50);

        @Test
        void leavesNoConnectionInThePoolAndNoThreadAfterManyAbandonedAttempts() {
            List<ConnectionPool> pools = new CopyOnWriteArrayList<>();
            OpenAiHttpClientBuilderCustomizer poolSeen = (builder) -> builder.interceptor((chain) -> {
                // A test's read of OkHttp 4.12's call, the one way to reach the pool the model's client uses.
                pools.add(((RealCall) chain.call()).getClient().connectionPool());
                return chain.proceed(chain.request());
            });
            for (int i = 0; i < 1 + ABANDONED; i++) {
                server.enqueue(SseScriptServer.Exchange::hang);
            }
            Retrier retrier = Retrier.builder(new Policy(0, BACKOFF, 1, BACKOFF))
                .name("openAiChatModel")
                .timeouts(Timeouts.none().withAttempt(SHORT))
                .build();
            SpringAiStarters.openAi(server.baseUrl().toString())
                .withBean(OpenAiHttpClientBuilderCustomizer.class, () -> poolSeen)
                .withBean(ModelRetriers.class,
                        () -> (name) -> name.equals("openAiChatModel") ? Optional.of(retrier) : Optional.empty())
                .run((context) -> {
                    ChatModel model = context.getBean("openAiChatModel", ChatModel.class);
                    // Starts OkHttp's and the timer's threads, and is abandoned as every call after it.
                    assertThatThrownBy(() -> model.call("Warm up")).isInstanceOf(ExhaustedException.class);
                    ConnectionPool pool = pools.get(0);
                    int connections = pool.connectionCount();
                    int threads = Thread.activeCount();

                    for (int i = 0; i < ABANDONED; i++) {
                        assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(ExhaustedException.class)
                            .cause()
                            .isInstanceOf(AttemptTimeoutException.class);
                    }

                    // An attempt abandoned before its request was written reaches the server as no request.
                    assertThat(server.requestCount()).isLessThanOrEqualTo(1 + ABANDONED);
                    awaitTrue(() -> pool.connectionCount() <= connections, Duration.ofSeconds(20));
                    awaitTrue(() -> server.openConnections() == 0, Duration.ofSeconds(20));
                    // Idle OkHttp and timer threads end on their own; none must stay per abandoned attempt.
                    awaitTrue(() -> Thread.activeCount() <= threads + 2, Duration.ofSeconds(20));
                });
        }
    }

    @Nested
    class AnthropicStream {

        @Test
        void retriesAStreamOfPreambleAndPingsPastItsFirstTokenTimeout() {
            server.enqueue((exchange) -> {
                exchange.sse().event("message_start", data(AnthropicWire.start()))
                    .event("content_block_start", data(AnthropicWire.emptyTextBlockStart()));
                while (true) {
                    exchange.event("ping", data(AnthropicWire.ping())).pause(KEEP_ALIVE_EVERY);
                }
            }, SdkExchangeTimeoutsTests::anthropicHello);
            anthropic(Timeouts.none().withFirstToken(TIMEOUT), (context) -> {
                long start = System.nanoTime();

                String answer = streamed(context.getBean("anthropicChatModel", StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT);
                assertThat(server.requestCount()).isEqualTo(2);
                awaitTrue(() -> server.closedByClient() == 1);
            });
        }

        @Test
        void abandonsAStreamWhoseResponseNeverBeginsAtItsFirstTokenTimeoutAndSucceedsOnTheNext() {
            server.enqueue(SdkExchangeTimeoutsTests::anthropicHello, SseScriptServer.Exchange::hang,
                    SdkExchangeTimeoutsTests::anthropicHello);
            anthropic(Timeouts.none().withFirstToken(TIMEOUT).withStreamIdle(TIMEOUT),
                    (context) -> assertAnsweredAfterOneHungAttempt(server,
                            (prompt) -> streamed(context.getBean("anthropicChatModel", StreamingChatModel.class)), "Hi",
                            (answer) -> assertThat(answer).isEqualTo("Hello")));
        }
    }

    @Nested
    class AnthropicCall {

        @Test
        void abandonsAHungAttemptAndSucceedsOnTheNext() {
            SseScriptServer.Script message = (exchange) -> exchange.json(200, Map.of(), AnthropicWire.message("Hello"));
            server.enqueue(message, SseScriptServer.Exchange::hang, message);
            anthropic(Timeouts.none().withAttempt(TIMEOUT), (context) -> assertAnsweredAfterOneHungAttempt(server,
                    context.getBean("anthropicChatModel", ChatModel.class)::call, "Hi",
                    (answer) -> assertThat(answer).isEqualTo("Hello")));
        }
    }

    /** OpenAI's whole stream of "Hello", in two chunks. */
    private static void openAiHello(SseScriptServer.Exchange exchange) throws IOException {
        exchange.sse().data(OpenAiWire.chunk("Hel")).data(OpenAiWire.chunk("lo")).data("[DONE]");
    }

    /** Anthropic's whole stream of "Hello", in two text deltas. */
    private static void anthropicHello(SseScriptServer.Exchange exchange) throws IOException {
        exchange.sse();
        for (String event : AnthropicWire.stream(List.of("Hel", "lo")).split("\n\n")) {
            exchange.event(name(event), data(event));
        }
    }

    /** The data of one event as {@link AnthropicWire} writes it. */
    private static String data(String event) {
        return event.substring(event.indexOf("data: ") + "data: ".length()).strip();
    }

    private static String name(String event) {
        return event.substring("event: ".length(), event.indexOf('\n'));
    }

    private void openAi(Timeouts timeouts, ContextConsumer<AssertableApplicationContext> test) {
        TimedModels.run(SpringAiStarters.openAi(this.server.baseUrl().toString()), "openAiChatModel", timeouts, test);
    }

    private void anthropic(Timeouts timeouts, ContextConsumer<AssertableApplicationContext> test) {
        TimedModels.run(SpringAiStarters.anthropic(this.server.baseUrl().toString()), "anthropicChatModel", timeouts,
                test);
    }
}
