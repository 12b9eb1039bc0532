package dev.inference.retry.springai.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.http.AsyncStreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.Model;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.AnthropicWire;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.SseChatModelRetryContract;
import dev.inference.retry.springai.TaskCountingExecutor;
import dev.inference.retry.autoconfigure.RetryTimer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;

/**
 * The threads that a stream of the rebuilt Anthropic model takes, against a provider on a loopback
 * port: its first event read on one task of the SDK's stream handler executor; the rest read where the
 * reader of the stream reads it, on that same thread for the SDK's own stream responses.
 */
class AnthropicStreamThreadsTests {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(AnthropicWire.PATH);

    /** Held until the test lets it run, so that a stream is subscribed to before its first event is read. */
    private final TaskCountingExecutor streamHandlers = TaskCountingExecutor.holding("stream-handler");

    private final RetryTimer timer = new RetryTimer();

    private final Set<Thread> delivering = new CopyOnWriteArraySet<>();

    @BeforeEach
    void setUp() {
        provider.resetAll();
        provider.always(SseChatModelRetryContract.eventStream(AnthropicWire.stream(List.of("Hel", "lo"))));
    }

    @AfterEach
    void tearDown() {
        this.timer.close();
        this.streamHandlers.close();
    }

    @Test
    void theModelsStreamTakesOneTaskOfTheStreamHandlerExecutorToReadItsFirstEvent() {
        this.streamHandlers.release();

        List<String> chunks = retried().stream("Hi").collectList().block(Duration.ofSeconds(10));

        assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo");
        assertThat(this.streamHandlers.tasks()).isEqualTo(1);
    }

    @Test
    void anSdkStreamResponseIsReadOnTheThreadThatReadItsFirstEvent() {
        AsyncStreamResponse<RawMessageStreamEvent> stream = retried().getAnthropicClientAsync()
            .messages()
            .createStreaming(MessageCreateParams.builder()
                .model(Model.CLAUDE_SONNET_4_5)
                .maxTokens(100)
                .addUserMessage("Hi")
                .build())
            .subscribe((event) -> this.delivering.add(Thread.currentThread()));
        // Subscribed before the first event is read: a subscription made after the exchange completed hops, by design.
        this.streamHandlers.release();
        stream.onCompleteFuture().join();

        assertThat(this.streamHandlers.tasks()).isEqualTo(1);
        assertThat(this.streamHandlers.threadsThatRanTasks()).singleElement()
            .satisfies((reader) -> assertThat(this.delivering).containsExactly(reader));
    }

    private AnthropicChatModel retried() {
        AnthropicChatModel built = AnthropicChatModel.builder()
            .options(AnthropicChatOptions.builder()
                .baseUrl("http://127.0.0.1:" + provider.port())
                .apiKey("test")
                .maxRetries(0)
                .model("claude-sonnet-4-5")
                .build())
            .build();
        // The same clients, on a stream handler executor that counts its tasks.
        AnthropicChatModel model = AnthropicChatModel.builder()
            .anthropicClient(built.getAnthropicClient()
                .withOptions((options) -> options.streamHandlerExecutor(this.streamHandlers)))
            .anthropicClientAsync(built.getAnthropicClientAsync()
                .withOptions((options) -> options.streamHandlerExecutor(this.streamHandlers)))
            .options(built.getOptions())
            .build();
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1)))
            .name("anthropicChatModel")
            .build();
        return AnthropicChatModelRebuild.rebuild(model, "anthropicChatModel", retrier, this.timer);
    }
}
