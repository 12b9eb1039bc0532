package dev.inference.retry.springai.google;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.google.genai.errors.ClientException;
import com.google.genai.errors.ServerException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ShouldRetryHeader;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.BlockedCall;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.ChatModelRetryContract;
import dev.inference.retry.springai.GoogleWire;
import dev.inference.retry.springai.RecordingRetryEvents;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.SpringAiStarters;
import dev.inference.retry.springai.SseChatModelRetryContract;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * Spring AI 2.0.1's real Google GenAI chat model on the Gemini API, auto-configured as an application
 * gets it, against a provider speaking Gemini's wire format on a loopback port: its exchanges are
 * retried beneath the bean, by the {@code status} and {@code RetryInfo} of Gemini's error bodies, with
 * the SDK's own retries (5 attempts) off.
 */
class GoogleGenAiChatModelRetryTests {

    private static final String BEAN = "googleGenAiChatModel";

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(GoogleWire.GENERATE);

    private RecordingRetryEvents events;

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
        this.events = new RecordingRetryEvents();
    }

    @Nested
    class Call {

        @Test
        void retriesAResourceExhaustedAfterTheRetryInfoDelay() {
            provider.script(GoogleWire.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", "1s"),
                    GoogleWire.completion("Hello"));
            run((context) -> {
                String answer = model(context).call("Hi");

                assertThat(answer).isEqualTo("Hello");
                assertThat(provider.requests()).isEqualTo(2);
                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(Duration.ofSeconds(1));
                assertThat(events.waits()).singleElement()
                    .satisfies((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
                assertThat(events.finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.INVOKE);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheSdksExceptionAsTheCause() {
            provider.always(GoogleWire.error(503, "UNAVAILABLE", "The model is overloaded"));
            run((context) -> {
                ChatModel model = model(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOf(ServerException.class)
                        .hasMessageContaining("The model is overloaded")
                        .cause()
                        .isInstanceOfSatisfying(HttpStatusException.class,
                                (typed) -> assertThat(typed.status()).isEqualTo(503));
                });
                // 3, not 15: the SDK's own retries, 5 attempts by default, are off.
                assertThat(provider.requests()).isEqualTo(3);
            });
        }

        @Test
        void passesABadRequestThroughAsTheModelThrowsItWithTheSdksExceptionAsTheCause() {
            provider.always(GoogleWire.error(400, "INVALID_ARGUMENT", "Bad"));
            run((context) -> {
                ChatModel model = model(context);

                assertThatThrownBy(() -> model.call("Hi")).isExactlyInstanceOf(RuntimeException.class)
                    .cause()
                    .isInstanceOfSatisfying(ClientException.class, (ex) -> {
                        assertThat(ex.code()).isEqualTo(400);
                        assertThat(ex.message()).isEqualTo("Bad");
                    })
                    .hasNoCause();
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void makesOneRequestWhenTheProviderSaysAFailureMustNotBeRetried() {
            provider.always(GoogleWire.error(503, "UNAVAILABLE", "The model is overloaded")
                .withHeader(ShouldRetryHeader.NAME, "false"));
            run((context) -> {
                ChatModel model = model(context);

                assertThatThrownBy(() -> model.call("Hi")).isNotInstanceOf(ExhaustedException.class)
                    .cause()
                    .isInstanceOf(ServerException.class);
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void retriesAsTheStatusSaysWhenTheProviderSaysAFailureMayBeRetried() {
            provider.always(GoogleWire.error(503, "UNAVAILABLE", "The model is overloaded")
                .withHeader(ShouldRetryHeader.NAME, "true"));
            run((context) -> {
                ChatModel model = model(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.attempts()).isEqualTo(3));
                assertThat(provider.requests()).isEqualTo(3);
            });
        }

        @Test
        void takesAPermanentStatusOverACodeThatWouldBeRetried() {
            provider.always(GoogleWire.error(500, "FAILED_PRECONDITION", "Not in this region"));
            run((context) -> {
                ChatModel model = model(context);

                assertThatThrownBy(() -> model.call("Hi")).cause().isInstanceOf(ServerException.class);
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void capsTheRetryInfoDelayAtFiveMinutesAndEndsItWhenInterrupted() throws InterruptedException {
            provider.always(GoogleWire.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", "3600s"));
            run((context) -> {
                ChatModel model = model(context);
                BlockedCall call = BlockedCall.start(() -> model.call("Hi"));
                awaitTrue(() -> !events.scheduled().isEmpty());

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(ChatModelRetryContract.FIVE_MINUTES);
                Duration ended = call.interruptAndJoin(ChatModelRetryContract.PROMPT.plus(ChatModelRetryContract.MARGIN));

                assertThat(call.isAlive()).isFalse();
                assertThat(ended).isLessThan(ChatModelRetryContract.PROMPT.plus(ChatModelRetryContract.MARGIN));
                assertThat(call.thrown()).isInstanceOf(CancellationException.class);
                assertThat(provider.requests()).isEqualTo(1);
            });
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesAStreamAfterAnUnavailableAndGivesEveryChunkOnce() {
            script(GoogleWire.error(503, "UNAVAILABLE", "The model is overloaded"), GoogleWire.stream("Hel", "lo"));
            run((context) -> {
                List<String> chunks = model(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(chunks).containsExactly("Hel", "lo");
                assertThat(streamRequests()).isEqualTo(2);
                assertThat(events.finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.STREAM);
            });
        }

        @Test
        void retriesATransientErrorSentAsTheFirstEvent() {
            script(SseChatModelRetryContract.eventStream(GoogleWire.event(GoogleWire.errorBody(503, "UNAVAILABLE", "Overloaded"))),
                    GoogleWire.stream("Hello"));
            run((context) -> {
                List<String> chunks = model(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(chunks).containsExactly("Hello");
                assertThat(streamRequests()).isEqualTo(2);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsSignallingTheExhaustion() {
            script(GoogleWire.error(503, "UNAVAILABLE", "The model is overloaded"));
            run((context) -> {
                assertThatThrownBy(() -> model(context).stream("Hi").collectList().block(Duration.ofSeconds(10)))
                    .isInstanceOf(ExhaustedException.class);
                assertThat(streamRequests()).isEqualTo(3);
            });
        }

        private void script(ResponseDefinitionBuilder... responses) {
            for (int i = 0; i < responses.length; i++) {
                String state = (i == 0) ? STARTED : "answer " + i;
                provider.stubFor(post(urlEqualTo(GoogleWire.STREAM)).inScenario("stream")
                    .whenScenarioStateIs(state)
                    .willReturn(responses[i])
                    .willSetStateTo((i + 1 < responses.length) ? "answer " + (i + 1) : state));
            }
        }

        private int streamRequests() {
            return provider.countRequestsMatching(postRequestedFor(urlEqualTo(GoogleWire.STREAM)).build()).getCount();
        }
    }

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name(BEAN)
            .listener(this.events)
            .observer(this.events)
            .build();
        SpringAiStarters.googleGenAi("http://127.0.0.1:" + provider.port())
            .withBean(ModelRetriers.class,
                    () -> (name) -> name.equals(BEAN) ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BEAN)).isInstanceOf(GoogleGenAiChatModel.class);
                test.accept(context);
            });
    }

    private static ChatModel model(AssertableApplicationContext context) {
        return context.getBean(BEAN, ChatModel.class);
    }
}
