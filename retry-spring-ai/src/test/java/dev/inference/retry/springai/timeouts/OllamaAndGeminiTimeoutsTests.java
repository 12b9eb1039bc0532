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

import dev.inference.failure.AttemptTimeoutException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryListener;
import dev.inference.retry.StreamStalledEvent;
import dev.inference.retry.Timeouts;
import dev.inference.retry.springai.GoogleWire;
import dev.inference.retry.springai.OllamaWire;
import dev.inference.retry.springai.SpringAiStarters;
import dev.inference.retry.springai.testing.SseScriptServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * The timeouts of SPEC §11 on the models retried on other clients than the Stainless SDKs': Ollama's chat
 * and embedding (Spring's {@code RestClient} for a call, its {@code WebClient} for a stream of
 * newline-delimited JSON) and Gemini's chat (the Google GenAI SDK's OkHttp client, server-sent events),
 * auto-configured as an application gets them, against a loopback provider that hangs or stalls.
 */
class OllamaAndGeminiTimeoutsTests {

    private static final String OLLAMA = "ollamaChatModel";

    private static final String OLLAMA_EMBEDDING = "ollamaEmbeddingModel";

    private static final String GEMINI = "googleGenAiChatModel";

    private final List<StreamStalledEvent> stalled = new CopyOnWriteArrayList<>();

    private final RetryListener stalls = new RetryListener() {

        @Override
        public void streamStalled(StreamStalledEvent event) {
            OllamaAndGeminiTimeoutsTests.this.stalled.add(event);
        }
    };

    private final SseScriptServer server = SseScriptServer.start();

    /**
     * Loads what the first exchanges of each model load, once for the class and with no timeout: on a
     * busy machine a cold first exchange may take longer than the timeouts tested.
     */
    @BeforeAll
    static void warmUp() {
        try (SseScriptServer warm = SseScriptServer.start()) {
            warm.enqueue(OllamaAndGeminiTimeoutsTests::ollamaAnswer,
                    (exchange) -> exchange.ndjson().line(ollamaChunk("Hello")).line(OllamaWire.chatBody("")),
                    OllamaAndGeminiTimeoutsTests::embeddings, OllamaAndGeminiTimeoutsTests::geminiAnswer,
                    (exchange) -> exchange.sse().data(GoogleWire.response("Hello", true)));
            TimedModels.run(SpringAiStarters.ollama(warm.baseUrl().toString()), OLLAMA, Timeouts.none(), (context) -> {
                context.getBean(OLLAMA, ChatModel.class).call("Hi");
                streamed(context.getBean(OLLAMA, StreamingChatModel.class));
                context.getBean(OLLAMA_EMBEDDING, EmbeddingModel.class).embed("Hi");
            });
            TimedModels.run(SpringAiStarters.googleGenAi(warm.baseUrl().toString()), GEMINI, Timeouts.none(),
                    (context) -> {
                        context.getBean(GEMINI, ChatModel.class).call("Hi");
                        streamed(context.getBean(GEMINI, StreamingChatModel.class));
                    });
        }
    }

    @AfterEach
    void stopServer() {
        this.server.close();
    }

    @Nested
    class OllamaCall {

        @Test
        void abandonsAHungAttemptAndSucceedsOnTheNext() {
            server.enqueue(OllamaAndGeminiTimeoutsTests::ollamaAnswer, SseScriptServer.Exchange::hang,
                    OllamaAndGeminiTimeoutsTests::ollamaAnswer);
            ollama(Timeouts.none().withAttempt(TIMEOUT), (context) -> assertAnsweredAfterOneHungAttempt(server,
                    context.getBean(OLLAMA, ChatModel.class)::call, "Hi",
                    (answer) -> assertThat(answer).isEqualTo("Hello")));
        }

        @Test
        void givesUpAfterMaxAttemptsAndLeavesTheCallersThreadUninterrupted() {
            server.enqueue(SseScriptServer.Exchange::hang, SseScriptServer.Exchange::hang,
                    SseScriptServer.Exchange::hang);
            ollama(Timeouts.none().withAttempt(TIMEOUT), (context) -> {
                ChatModel model = context.getBean(OLLAMA, ChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.getCause()).isInstanceOf(AttemptTimeoutException.class));
                assertThat(Thread.currentThread().isInterrupted()).isFalse();
                assertThat(server.requestCount()).isEqualTo(3);
                awaitTrue(() -> server.closedByClient() == 3);
            });
        }
    }

    @Nested
    class OllamaEmbedding {

        @Test
        void abandonsAHungAttemptAndSucceedsOnTheNext() {
            server.enqueue(OllamaAndGeminiTimeoutsTests::embeddings, SseScriptServer.Exchange::hang,
                    OllamaAndGeminiTimeoutsTests::embeddings);
            TimedModels.run(SpringAiStarters.ollama(server.baseUrl().toString()), OLLAMA_EMBEDDING,
                    Timeouts.none().withAttempt(TIMEOUT), stalls,
                    (context) -> assertAnsweredAfterOneHungAttempt(server,
                            context.getBean(OLLAMA_EMBEDDING, EmbeddingModel.class)::embed, "Hello",
                            (embedding) -> assertThat(embedding).isNotEmpty()));
        }
    }

    @Nested
    class OllamaStream {

        @Test
        void endsAStreamSilentPastItsIdleTimeoutAfterTheContentSentWithoutRetrying() {
            server.enqueue((exchange) -> exchange.ndjson().line(ollamaChunk("Hel")).hang());
            ollama(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                List<String> received = assertStreamEndsStalled(server,
                        context.getBean(OLLAMA, StreamingChatModel.class));

                assertThat(received).containsExactly("Hel");
                assertThat(stalled).containsExactly(new StreamStalledEvent(OLLAMA, TIMEOUT));
            });
        }

        @Test
        void leavesAStreamWhoseLinesComeWithinTheIdleTimeout() {
            server.enqueue((exchange) -> exchange.ndjson()
                .line(ollamaChunk("Hel"))
                .pause(TIMEOUT.dividedBy(2))
                .line(ollamaChunk("lo"))
                .pause(TIMEOUT.dividedBy(2))
                .line(OllamaWire.chatBody("")));
            ollama(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                String answer = streamed(context.getBean(OLLAMA, StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(stalled).isEmpty();
            });
        }
    }

    @Nested
    class GeminiCall {

        @Test
        void abandonsAHungAttemptAndSucceedsOnTheNext() {
            server.enqueue(OllamaAndGeminiTimeoutsTests::geminiAnswer, SseScriptServer.Exchange::hang,
                    OllamaAndGeminiTimeoutsTests::geminiAnswer);
            gemini(Timeouts.none().withAttempt(TIMEOUT), (context) -> assertAnsweredAfterOneHungAttempt(server,
                    context.getBean(GEMINI, ChatModel.class)::call, "Hi",
                    (answer) -> assertThat(answer).isEqualTo("Hello")));
        }
    }

    @Nested
    class GeminiStream {

        @Test
        void retriesAStreamWhoseFirstEventIsLatePastItsFirstTokenTimeout() {
            server.enqueue((exchange) -> exchange.sse().hang(), (exchange) -> exchange.sse()
                .data(GoogleWire.response("Hel", false))
                .data(GoogleWire.response("lo", true)));
            gemini(Timeouts.none().withFirstToken(TIMEOUT), (context) -> {
                long start = System.nanoTime();

                String answer = streamed(context.getBean(GEMINI, StreamingChatModel.class));

                assertThat(answer).isEqualTo("Hello");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT)
                    .isLessThan(TIMEOUT.plus(BACKOFF).plus(MARGIN));
                assertThat(server.requestCount()).isEqualTo(2);
                awaitTrue(() -> server.closedByClient() == 1);
            });
        }

        @Test
        void endsAStreamSilentPastItsIdleTimeoutWithoutRetrying() {
            // The SDK reads an event ahead of the one it hands out: the stall ends the stream before "Hel".
            server.enqueue((exchange) -> exchange.sse().data(GoogleWire.response("Hel", false)).hang());
            gemini(Timeouts.none().withStreamIdle(TIMEOUT), (context) -> {
                assertStreamEndsStalled(server, context.getBean(GEMINI, StreamingChatModel.class));

                assertThat(stalled).containsExactly(new StreamStalledEvent(GEMINI, TIMEOUT));
            });
        }
    }

    private static void ollamaAnswer(SseScriptServer.Exchange exchange) throws IOException {
        exchange.json(200, Map.of(), OllamaWire.chatBody("Hello"));
    }

    private static void embeddings(SseScriptServer.Exchange exchange) throws IOException {
        exchange.json(200, Map.of(), OllamaWire.embeddingsBody());
    }

    private static void geminiAnswer(SseScriptServer.Exchange exchange) throws IOException {
        exchange.json(200, Map.of(), GoogleWire.response("Hello", true));
    }

    /** A line of Ollama's stream, without the newline {@link SseScriptServer.Exchange#line} adds. */
    private static String ollamaChunk(String content) {
        return OllamaWire.chunk(content).strip();
    }

    private void ollama(Timeouts timeouts, ContextConsumer<AssertableApplicationContext> test) {
        TimedModels.run(SpringAiStarters.ollama(this.server.baseUrl().toString()), OLLAMA, timeouts, this.stalls, test);
    }

    private void gemini(Timeouts timeouts, ContextConsumer<AssertableApplicationContext> test) {
        TimedModels.run(SpringAiStarters.googleGenAi(this.server.baseUrl().toString()), GEMINI, timeouts, this.stalls,
                test);
    }
}
