package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.AsyncStreamResponse;
import com.openai.core.http.HttpClient;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * The OpenAI SDK's asynchronous client, on the retrying HTTP client and wrapped so that closing a
 * stream ends its exchange, against a provider on a loopback port.
 */
class CancellableStreamsTests {

    private final WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    private final RetryTimer timer = new RetryTimer();

    private final StreamCalls calls = new StreamCalls();

    private final ExecutorService streamReader = Executors.newCachedThreadPool();

    private OpenAIClientAsync plain;

    private OpenAIClientAsync wrapped;

    @BeforeEach
    void setUp() {
        this.provider.start();
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1))).build();
        HttpClient retrying = RetryingHttpClient.of(OpenAiHttp.HTTP, SpringAiOpenAiHttpClient.builder().build(),
                retrier, this.timer, this.streamReader, this.calls, false);
        this.plain = new OpenAIClientAsyncImpl(ClientOptions.builder().httpClient(retrying)
            .baseUrl("http://127.0.0.1:" + this.provider.port() + "/v1")
            .apiKey("test")
            .maxRetries(0)
            .build());
        this.wrapped = CancellableStreams.wrap(this.plain, this.calls);
    }

    @AfterEach
    void tearDown() {
        this.plain.close();
        this.timer.close();
        this.streamReader.shutdownNow();
        this.provider.stop();
    }

    @Nested
    class ClosingAStream {

        @Test
        void duringAWaitEndsItsExchangeWithNoFurtherRequest() {
            provider.stubFor(post(urlEqualTo(OpenAiWire.PATH))
                .willReturn(aResponse().withStatus(429).withHeader("Retry-After", "3600")));
            AsyncStreamResponse<ChatCompletionChunk> stream = wrapped.chat().completions().createStreaming(params());
            awaitTrue(() -> timer.pendingWaits() == 1);

            stream.close();

            awaitTrue(() -> timer.pendingWaits() == 0 && calls.size() == 0);
            assertThat(provider.findAll(postRequestedFor(urlEqualTo(OpenAiWire.PATH)))).singleElement()
                .satisfies((request) -> assertThat(request.containsHeader(StreamCalls.HEADER)).isFalse());
        }
    }

    @Nested
    class AStreamThatEnds {

        @Test
        void deliversEveryChunkAndForgetsItsCall() {
            provider.stubFor(post(urlEqualTo(OpenAiWire.PATH)).willReturn(aResponse()
                .withHeader("Content-Type", "text/event-stream")
                .withBody(OpenAiWire.stream(List.of("Hel", "lo")))));
            List<String> contents = new CopyOnWriteArrayList<>();

            wrapped.chat().completions().createStreaming(params())
                .subscribe((chunk) -> chunk.choices().forEach((choice) -> choice.delta().content().ifPresent(contents::add)))
                .onCompleteFuture()
                .join();

            assertThat(contents).containsExactly("Hel", "lo");
            awaitTrue(() -> calls.size() == 0);
        }
    }

    @Nested
    class EverythingElse {

        @Test
        void isTheWrappedClients() {
            assertThat(wrapped.embeddings()).isSameAs(plain.embeddings());
            assertThat(wrapped.chat().completions().messages()).isSameAs(plain.chat().completions().messages());
        }

        @Test
        void staysWrappedWithOtherOptions() {
            assertThat(CancellableStreams.isWrapper(wrapped)).isTrue();
            assertThat(CancellableStreams.isWrapper(wrapped.withOptions((options) -> options.maxRetries(0)))).isTrue();
            assertThat(CancellableStreams.isWrapper(wrapped.chat().withOptions((options) -> options.maxRetries(0))))
                .isTrue();
            assertThat(CancellableStreams.isWrapper(plain)).isFalse();
        }

        @Test
        void isEqualOnlyToItself() {
            // The proxy's own equals, not AssertJ's identity shortcut: compare through another reference.
            Object sameProxy = wrapped;
            assertThat(wrapped.equals(sameProxy)).isTrue();
            assertThat(wrapped.equals(plain)).isFalse();
            assertThat(wrapped.hashCode()).isEqualTo(System.identityHashCode(sameProxy));
            assertThat(wrapped.toString()).startsWith("CancellableStreams[");
        }
    }

    private static ChatCompletionCreateParams params() {
        return ChatCompletionCreateParams.builder().model("gpt-4o-mini").addUserMessage("Hi").build();
    }
}
