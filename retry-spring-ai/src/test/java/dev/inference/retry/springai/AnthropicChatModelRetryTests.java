package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.InternalServerException;
import com.anthropic.errors.SseException;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import okhttp3.Interceptor;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring AI 2.0.1's real Anthropic model, auto-configured as an application gets it, against a provider
 * speaking Anthropic's wire format on a loopback port: its exchanges are retried beneath the bean, with
 * its own client's retries off (whose default, {@code spring.ai.anthropic.max-retries}, is 2).
 */
class AnthropicChatModelRetryTests extends SseChatModelRetryContract {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(AnthropicWire.PATH);

    @Override
    protected ScriptedProvider provider() {
        return provider;
    }

    @Override
    protected String beanName() {
        return "anthropicChatModel";
    }

    @Override
    protected ApplicationContextRunner runnerAgainst(int port) {
        return SpringAiStarters.anthropic("http://127.0.0.1:" + port);
    }

    @Override
    protected ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(AnthropicWire.message(content));
    }

    @Override
    protected ResponseDefinitionBuilder stream(String... contents) {
        return aResponse().withHeader("Content-Type", "text/event-stream")
            .withBody(AnthropicWire.stream(List.of(contents)));
    }

    @Override
    protected String errorBody(String type, String message) {
        return AnthropicWire.error(type, message);
    }

    @Override
    protected String serverErrorType() {
        return "overloaded_error";
    }

    @Override
    protected String streamWithErrorFirst(String type, String message) {
        return AnthropicWire.errorEvent(type, message);
    }

    @Override
    protected String firstChunkOfContent(String content) {
        return AnthropicWire.start() + AnthropicWire.delta(content);
    }

    @Override
    protected Class<? extends RuntimeException> serverErrorException() {
        return InternalServerException.class;
    }

    @Override
    protected Class<? extends RuntimeException> badRequestException() {
        return BadRequestException.class;
    }

    @Override
    protected Class<? extends RuntimeException> inBandErrorException() {
        return SseException.class;
    }

    /** The SDK says the status and the whole error body. */
    @Override
    protected String thrownMessage(int status, String errorBody) {
        return status + ": " + errorBody;
    }

    @Override
    protected ApplicationContextRunner withInterceptor(ApplicationContextRunner runner, Interceptor interceptor) {
        return runner.withBean(AnthropicHttpClientBuilderCustomizer.class,
                () -> (builder) -> builder.interceptor(interceptor));
    }

    /** What Anthropic may send before a stream's content: the message's start, pings, an empty block's start. */
    static java.util.stream.Stream<Arguments> preambles() {
        // Qualified: the contract has a nested class Stream.
        return java.util.stream.Stream.of(Arguments.of("the message started and a ping", AnthropicWire.start() + AnthropicWire.ping()),
                Arguments.of("the first block opened, empty, and a ping",
                        AnthropicWire.start() + AnthropicWire.emptyTextBlockStart() + AnthropicWire.ping()));
    }

    /**
     * The rate-limit headers Anthropic sends with every response, whose resets are instants: with a
     * cool-down store, an exhausted limit cools the bean's key until its reset, measured from this
     * host's clock.
     */
    @Nested
    class RateLimitHeaders {

        private final LocalCooldownStore store = LocalCooldownStore.create();

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "requests", "tokens", "input-tokens", "output-tokens" })
        void coolsTheAccountUntilTheResetOfAnExhaustedLimit(String limit) {
            String reset = DateTimeFormatter.ISO_INSTANT.format(Instant.now().plusSeconds(90));
            provider.script(completion("Hello").withHeader("anthropic-ratelimit-" + limit + "-remaining", "0")
                .withHeader("anthropic-ratelimit-" + limit + "-reset", reset)
                .withHeader("anthropic-ratelimit-requests-limit", "50"));
            runWith((retrier) -> retrier.cooldown(this.store, "anthropic"), (context) -> {
                assertThat(chat(context).call("Hi")).isEqualTo("Hello");

                assertThat(this.store.remaining("anthropic")).isGreaterThan(Duration.ofSeconds(80))
                    .isLessThanOrEqualTo(Duration.ofSeconds(90));
                assertThat(this.store.reason("anthropic")).contains(CooldownReason.RATE_LIMIT);
            });
        }

        @Test
        void leavesTheAccountAloneWhenTheResetHasPassed() {
            String reset = DateTimeFormatter.ISO_INSTANT.format(Instant.now().minusSeconds(1));
            provider.script(completion("Hello").withHeader("anthropic-ratelimit-requests-remaining", "0")
                .withHeader("anthropic-ratelimit-requests-reset", reset));
            runWith((retrier) -> retrier.cooldown(this.store, "anthropic"), (context) -> {
                chat(context).call("Hi");

                assertThat(this.store.remaining("anthropic")).isZero();
            });
        }
    }

    /** Anthropic opens every stream with message_start, an empty block and pings, before its content begins. */
    @Nested
    class StreamPreamble {

        @ParameterizedTest(name = "after {0}")
        @MethodSource("dev.inference.retry.springai.AnthropicChatModelRetryTests#preambles")
        void retriesAnOverloadedErrorSentBeforeAnyContent(String description, String preamble) {
            provider.script(eventStream(preamble + AnthropicWire.errorEvent("overloaded_error", "Overloaded")),
                    stream("Hel", "lo"));
            run((context) -> {
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo");
                assertThat(provider.requests()).isEqualTo(2);
            });
        }

        @Test
        void passesAPermanentErrorSentAfterTheMessageStartedThroughAsTheSdkThrowsIt() {
            String body = AnthropicWire.error("invalid_request_error", "Bad");
            provider.always(eventStream(AnthropicWire.start() + AnthropicWire.event("error", body)));
            run((context) -> {
                assertThatThrownBy(() -> streaming(context).stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(SseException.class)
                    .hasMessage("200: " + body);
                assertThat(provider.requests()).isEqualTo(1);
            });
        }
    }
}
