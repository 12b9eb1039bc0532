package dev.inference.retry.springai.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.OpenAiWire;
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
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * The threads that a stream of the rebuilt OpenAI model takes, against a provider on a loopback port:
 * as many as the model alone takes, its first event read on the thread of the SDK's stream handler
 * executor that then reads the rest and hands every chunk to the subscriber.
 */
class OpenAiStreamThreadsTests {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private final TaskCountingExecutor streamHandlers = new TaskCountingExecutor("stream-handler");

    private final RetryTimer timer = new RetryTimer();

    private final Set<Thread> delivering = new CopyOnWriteArraySet<>();

    @BeforeEach
    void setUp() {
        provider.resetAll();
        provider.always(SseChatModelRetryContract.eventStream(OpenAiWire.event(OpenAiWire.chunk(""))
                + OpenAiWire.stream(List.of("Hel", "lo"))));
    }

    @AfterEach
    void tearDown() {
        this.timer.close();
        this.streamHandlers.close();
    }

    @Test
    void takesOneTaskOfTheStreamHandlerExecutorAsTheModelAloneDoes() {
        consume(model());
        int alone = this.streamHandlers.tasks();

        consume(retried(model()));

        assertThat(alone).isEqualTo(1);
        assertThat(this.streamHandlers.tasks() - alone).isEqualTo(alone);
    }

    @Test
    void deliversEveryChunkOnTheThreadThatReadTheFirstEvent() {
        consume(retried(model()));

        assertThat(this.streamHandlers.threadsThatRanTasks()).singleElement()
            .satisfies((reader) -> assertThat(this.delivering).containsExactly(reader));
    }

    private void consume(OpenAiChatModel model) {
        List<String> chunks = model.stream("Hi")
            .doOnNext((chunk) -> this.delivering.add(Thread.currentThread()))
            .collectList()
            .block(Duration.ofSeconds(10));
        assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo");
    }

    private OpenAiChatModel retried(OpenAiChatModel model) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1)))
            .name("openAiChatModel")
            .build();
        return OpenAiChatModelRebuild.rebuild(model, "openAiChatModel", retrier, this.timer);
    }

    /** The model as an application builds it, on SDK clients whose stream handler executor counts its tasks. */
    private OpenAiChatModel model() {
        return OpenAiChatModel.builder()
            .openAiClient(new OpenAIClientImpl(options()))
            .openAiClientAsync(new OpenAIClientAsyncImpl(options()))
            .options(OpenAiChatOptions.builder().model("gpt-4o-mini").build())
            .build();
    }

    private ClientOptions options() {
        return ClientOptions.builder()
            .httpClient(SpringAiOpenAiHttpClient.builder().build())
            .baseUrl("http://127.0.0.1:" + provider.port() + "/v1")
            .apiKey("test")
            .maxRetries(0)
            .streamHandlerExecutor(this.streamHandlers)
            .build();
    }
}
