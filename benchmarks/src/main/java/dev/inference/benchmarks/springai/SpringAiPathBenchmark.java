package dev.inference.benchmarks.springai;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * The Spring AI path with the three timeouts set against the same path without them: a successful
 * {@code call} and a whole {@code stream} of Spring AI 2.0.1's {@code OpenAiChatModel} and
 * {@code AnthropicChatModel} as the starter rebuilds and retries them, their provider answered in memory
 * ({@link InMemoryProvider}), so that the network's noise does not hide a difference of a microsecond.
 * The cost of the timeouts is {@code time(timeouts=true) − time(timeouts=false)}; the goal is at most
 * 1 µs. The {@link SpringAiHarness} measures the same path end to end, over a loopback socket.
 *
 * <p>Trap: everything above the network runs as in an application: Spring AI's model, the SDK, its JSON,
 * OkHttp's interceptor chain, the starter's retried transport and its {@code AbandonableCalls}; a
 * stream's events all arrive at once, so a stream here measures the client's work and its hand-offs
 * between threads, not the provider's pace.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
// With fewer than 3 processors the common pool has one thread, and the SDKs' asynchronous streams then
// start a thread per stream (CompletableFuture's fallback), with or without the starter: noise, not cost.
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch",
        "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2" })
public class SpringAiPathBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final String EXPECTED = String.join("", LoopbackProvider.CONTENT);

    /** One application, its models retried by the starter, with or without the timeouts. */
    @State(Scope.Benchmark)
    public static class Models {

        /** The model's bean: {@code openAiChatModel} or {@code anthropicChatModel}. */
        @Param({ ChatModelContext.OPENAI, ChatModelContext.ANTHROPIC })
        public String model = ChatModelContext.OPENAI;

        /** Whether the three timeouts are set, 30 s each, never reached. */
        @Param({ "false", "true" })
        public boolean timeouts;

        ChatModelContext context;

        ChatModel chatModel;

        /**
         * Starts the application and checks that the model answers and that the starter retries it.
         *
         * @throws IllegalStateException if the model answers wrongly or the starter counted no attempt
         */
        @Setup
        public void setUp() {
            this.context = ChatModelContext.startInMemory(this.timeouts);
            this.chatModel = this.context.model(this.model, ChatModel.class);
            String answered = text(this.chatModel.call(new Prompt("Hello")));
            if (!EXPECTED.equals(answered) || this.context.attempts(this.model) != 1) {
                throw new IllegalStateException(this.model + " answered '" + answered + "' after "
                        + this.context.attempts(this.model) + " attempts counted by the starter; expected '"
                        + EXPECTED + "' after 1");
            }
        }

        /** Stops the application. */
        @TearDown
        public void tearDown() {
            this.context.close();
        }
    }

    /**
     * One successful call.
     *
     * @param models the application
     * @return the response, for JMH to consume
     */
    @Benchmark
    public ChatResponse call(Models models) {
        return models.chatModel.call(new Prompt("Hello"));
    }

    /**
     * One stream, consumed to its end.
     *
     * @param models the application
     * @return the last response of the stream, for JMH to consume
     */
    @Benchmark
    public ChatResponse stream(Models models) {
        return Objects.requireNonNull(models.chatModel.stream(new Prompt("Hello")).blockLast(TIMEOUT),
                "The stream ended empty");
    }

    private static String text(ChatResponse response) {
        StringBuilder text = new StringBuilder();
        for (Generation generation : response.getResults()) {
            text.append(Objects.requireNonNullElse(generation.getOutput().getText(), ""));
        }
        return text.toString();
    }
}
