package dev.inference.retry.springai.anthropic;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.anthropic.core.JsonMissing;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.SseException;
import com.anthropic.models.messages.MessageCreateParams;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.AnthropicWire;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.autoconfigure.RetryTimer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;

class AnthropicFailuresTests {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(AnthropicWire.PATH);

    private static final Headers STREAM_HEADERS = Headers.builder().put("Content-Type", "text/event-stream").build();

    private final RetryTimer timer = new RetryTimer();

    @AfterEach
    void closeTimer() {
        this.timer.close();
    }

    @Nested
    class RetryableStatuses {

        @ParameterizedTest(name = "[{index}] {0} {1}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                429 | {"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}
                529 | {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}
                500 | not json
                408 | ""
                """)
        void endAnExhaustionWithTheExceptionTheSdkThrowsForTheSameResponse(int status, String body) {
            provider.resetAll();
            provider.always(aResponse().withStatus(status).withHeader("request-id", "req-1").withBody(body));
            AnthropicChatModel plain = AnthropicChatModel.builder()
                .options(AnthropicChatOptions.builder().baseUrl("http://127.0.0.1:" + provider.port()).apiKey("test")
                    .maxRetries(0).build())
                .build();
            AnthropicChatModel retried = AnthropicChatModelRebuild.rebuild(plain, "anthropicChatModel",
                    Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1))).build(), timer);

            Throwable sdk = catchThrowable(() -> plain.getAnthropicClient().messages().create(params()));
            Throwable exhausted = catchThrowable(() -> retried.getAnthropicClient().messages().create(params()));

            assertThat(exhausted).isInstanceOf(ExhaustedException.class)
                .cause()
                .isExactlyInstanceOf(sdk.getClass())
                .hasMessage(sdk.getMessage());
            AnthropicServiceException built = (AnthropicServiceException) exhausted.getCause();
            AnthropicServiceException thrown = (AnthropicServiceException) sdk;
            assertThat(built.statusCode()).isEqualTo(thrown.statusCode()).isEqualTo(status);
            assertThat(built.body()).isEqualTo(thrown.body());
            assertThat(built.errorType()).isEqualTo(thrown.errorType());
            assertThat(built.headers().values("request-id")).containsExactly("req-1");
            assertThat(built.getCause()).isInstanceOfSatisfying(HttpStatusException.class,
                    (typed) -> assertThat(typed.status()).isEqualTo(status));
        }
    }

    @Nested
    class InBandErrors {

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', textBlock = """
                overloaded_error | 503
                api_error        | 500
                rate_limit_error | 429
                """)
        void ofATransientTypeAreRetryable(String type, int status) {
            SseException failure = AnthropicFailures.inBandFailure(errorEvent(AnthropicWire.error(type, "m")), 200, STREAM_HEADERS)
                .orElseThrow();

            assertThat(failure.statusCode()).isEqualTo(200);
            assertThat(failure).hasMessage("200: " + AnthropicWire.error(type, "m"));
            assertThat(failure.getCause()).isInstanceOfSatisfying(HttpStatusException.class,
                    (typed) -> assertThat(typed.status()).isEqualTo(status));
            assertThat(Classification.isRetryable(failure)).isTrue();
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                {"type":"error","error":{"type":"invalid_request_error","message":"m"}}
                {"type":"error","error":{"type":"authentication_error","message":"m"}}
                {"type":"error","error":"a string"}
                not json
                """)
        void ofAnyOtherTypeArePermanent(String data) {
            SseException failure = AnthropicFailures.inBandFailure(errorEvent(data), 200, STREAM_HEADERS).orElseThrow();

            assertThat(failure.getCause()).isNull();
            assertThat(Classification.isRetryable(failure)).isFalse();
        }

        @Test
        void keepAnUnreadableBodyMissingAsTheSdkDoes() {
            SseException failure = AnthropicFailures.inBandFailure(errorEvent("not json"), 200, STREAM_HEADERS).orElseThrow();

            assertThat(failure.body()).isEqualTo(JsonMissing.of());
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "-", textBlock = """
                content_block_start | {"type":"content_block_start","index":0}
                content_block_delta | {"type":"error","error":{"type":"overloaded_error","message":"m"}}
                -                   | {"type":"error","error":{"type":"overloaded_error","message":"m"}}
                """)
        void areOnlyEventsNamedError(String name, String data) {
            assertThat(AnthropicFailures.inBandFailure(new FirstSseEvent.Event(name, data), 200, STREAM_HEADERS)).isEmpty();
        }
    }

    @Nested
    class Preamble {

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(nullValues = "-", textBlock = """
                message_start, true
                ping, true
                content_block_start, false
                error, false
                -, false
                """)
        void isTheMessageStartAndPings(String name, boolean preamble) {
            assertThat(new AnthropicFailures().isPreamble(new FirstSseEvent.Event(name, "{}"))).isEqualTo(preamble);
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', textBlock = """
                {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}                      | true
                {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}              | true
                {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hel"}}                   | false
                {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}} | false
                {"type":"content_block_start","index":0}                                                                | false
                not json                                                                                                | false
                """)
        void isAContentBlockStartWhoseBlockIsStillEmpty(String data, boolean preamble) {
            assertThat(new AnthropicFailures().isPreamble(new FirstSseEvent.Event("content_block_start", data)))
                .isEqualTo(preamble);
        }

        // What the event's JSON tree says: the last of repeated members counts, in any order; not JSON opens nothing.
        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', textBlock = """
                {"content_block":{"type":"text","text":"Hel"},"content_block":{"type":"text","text":""}}          | true
                {"content_block":{"type":"text","text":""},"content_block":{"type":"text","text":"Hel"}}          | false
                {"content_block":{"type":"text","text":"","text":"Hel"}}                                           | false
                {"content_block":{"type":"tool_use","type":"text","text":""}}                                      | true
                {"content_block":{"text":"","type":"text"}}                                                        | true
                {"content_block":{"thinking":"","text":"Hel","type":"thinking"}}                                  | true
                {"content_block":{"type":"text","text":null}}                                                      | false
                {"content_block":{"type":"text","text":["",""],"extra":{"text":"Hel"}}}                            | false
                {"content_block":{"type":"text","text":""},"content_block":"text"}                                 | false
                {"index":{"content_block":{"type":"text","text":""}}}                                              | false
                {"content_block":{"type":"text","text":""}}  trailing                                             | true
                {"content_block":{"type":"text","text":""}                                                         | false
                {"content_block":{"type":"text","text":""},}                                                       | false
                [{"content_block":{"type":"text","text":""}}]                                                      | false
                """)
        void readsTheBlockAsTheEventsJsonTreeSaysIt(String data, boolean preamble) {
            assertThat(new AnthropicFailures().isPreamble(new FirstSseEvent.Event("content_block_start", data)))
                .isEqualTo(preamble);
        }
    }

    private static FirstSseEvent.Event errorEvent(String data) {
        return new FirstSseEvent.Event("error", data);
    }

    private static MessageCreateParams params() {
        return MessageCreateParams.builder().model("claude-test").maxTokens(16).addUserMessage("Hi").build();
    }
}
