package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import okhttp3.Interceptor;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * Spring AI 2.0.1's real OpenAI model, auto-configured as an application gets it, against a provider
 * speaking OpenAI's wire format on a loopback port: its exchanges are retried beneath the bean, with
 * its own client's retries off (whose default, {@code spring.ai.openai.max-retries}, is 3).
 */
class OpenAiChatModelRetryTests extends SseChatModelRetryContract {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OpenAiWire.PATH);

    @Override
    protected ScriptedProvider provider() {
        return provider;
    }

    @Override
    protected String beanName() {
        return "openAiChatModel";
    }

    /** Spring AI 2.0.0's model does not close the SDK's stream when its Flux is disposed; 2.0.1's does. */
    @Override
    protected boolean disposingTheStreamClosesIt() {
        return !"2.0.0".equals(OpenAiChatModel.class.getPackage().getImplementationVersion());
    }

    @Override
    protected ApplicationContextRunner runnerAgainst(int port) {
        return SpringAiStarters.openAi("http://127.0.0.1:" + port);
    }

    @Override
    protected ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.completion(content));
    }

    @Override
    protected ResponseDefinitionBuilder stream(String... contents) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(OpenAiWire.stream(List.of(contents)));
    }

    @Override
    protected String errorBody(String type, String message) {
        return OpenAiWire.error(type, message);
    }

    @Override
    protected String serverErrorType() {
        return "server_error";
    }

    @Override
    protected String streamWithErrorFirst(String type, String message) {
        return OpenAiWire.event(OpenAiWire.error(type, message)) + OpenAiWire.event("[DONE]");
    }

    @Override
    protected String firstChunkOfContent(String content) {
        return OpenAiWire.event(OpenAiWire.chunk(content));
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

    /** The SDK says the status and the error's message. */
    @Override
    protected String thrownMessage(int status, String errorBody) {
        return status + ": " + errorBody.replaceAll(".*\"message\":\"([^\"]*)\".*", "$1");
    }

    @Override
    protected ApplicationContextRunner withInterceptor(ApplicationContextRunner runner, Interceptor interceptor) {
        return runner.withBean(OpenAiHttpClientBuilderCustomizer.class,
                () -> (builder) -> builder.interceptor(interceptor));
    }

    /** The SDK signals every failure of a stream in a CompletionException, its own included. */
    @Override
    protected Throwable unwrapStreamFailure(Throwable signalled) {
        assertThat(signalled).isInstanceOf(CompletionException.class);
        return signalled.getCause();
    }

    /**
     * The rate-limit headers OpenAI sends with every response: with a cool-down store, an exhausted
     * limit cools the bean's key until its reset, for every caller of the account.
     */
    @Nested
    class RateLimitHeaders {

        private final LocalCooldownStore store = LocalCooldownStore.create();

        private ResponseDefinitionBuilder exhausted(ResponseDefinitionBuilder response, String reset) {
            return response.withHeader("x-ratelimit-limit-requests", "20")
                .withHeader("x-ratelimit-remaining-requests", "0")
                .withHeader("x-ratelimit-reset-requests", reset)
                .withHeader("x-ratelimit-remaining-tokens", "149984")
                .withHeader("x-ratelimit-reset-tokens", "6ms");
        }

        private void runCooled(ContextConsumer<AssertableApplicationContext> test) {
            runWith((retrier) -> retrier.cooldown(this.store, "openai"), test);
        }

        @Test
        void coolsTheAccountUntilTheResetOfASuccessfulCall() {
            provider.script(exhausted(completion("Hello"), "1m30s"));
            runCooled((context) -> {
                assertThat(chat(context).call("Hi")).isEqualTo("Hello");

                assertThat(this.store.remaining("openai")).isGreaterThan(Duration.ofSeconds(85))
                    .isLessThanOrEqualTo(Duration.ofSeconds(90));
                assertThat(this.store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
            });
        }

        @Test
        void coolsTheAccountUntilTheResetOfAStream() {
            provider.script(exhausted(stream("Hel", "lo"), "1m30s"));
            runCooled((context) -> {
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(this.store.remaining("openai")).isGreaterThan(Duration.ofSeconds(85));
            });
        }

        @Test
        void holdsTheRetryOfAFailureOffUntilTheReset() {
            provider.script(exhausted(serverError(), "700ms"), completion("Hello"));
            runCooled((context) -> {
                long start = System.nanoTime();

                assertThat(chat(context).call("Hi")).isEqualTo("Hello");

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
                assertThat(provider.requests()).isEqualTo(2);
            });
        }

        @Test
        void holdsTheNextCallOffUntilTheReset() {
            provider.script(exhausted(completion("Hello"), "700ms"), completion("Again"));
            runCooled((context) -> {
                chat(context).call("Hi");
                Duration remaining = this.store.remaining("openai");
                long start = System.nanoTime();

                assertThat(chat(context).call("Hi")).isEqualTo("Again");

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(remaining);
            });
        }

        @Test
        void leavesTheAccountAloneWhileRequestsAndTokensRemain() {
            provider.script(completion("Hello").withHeader("x-ratelimit-remaining-requests", "19")
                .withHeader("x-ratelimit-reset-requests", "1s"));
            runCooled((context) -> {
                chat(context).call("Hi");

                assertThat(this.store.remaining("openai")).isZero();
            });
        }

        @Test
        void leavesTheAccountAloneWhenRateLimitsAreNotHonoured() {
            provider.script(exhausted(completion("Hello"), "1m30s"));
            runWith((retrier) -> retrier.cooldown(this.store, "openai").honourRateLimits(false), (context) -> {
                chat(context).call("Hi");

                assertThat(this.store.remaining("openai")).isZero();
            });
        }

        @Test
        void coolsNothingForAUsedUpQuota() {
            provider.script(exhausted(aResponse().withStatus(429).withHeader("Retry-After", "30")
                .withBody(OpenAiWire.insufficientQuota("Check your billing.")), "1m30s"));
            runCooled((context) -> {
                assertThatThrownBy(() -> chat(context).call("Hi")).isInstanceOf(RateLimitException.class);

                assertThat(this.store.remaining("openai")).isZero();
            });
        }
    }

    /** A 429 whose error code says the account's quota is used up: no wait helps, so none is made. */
    @Nested
    class Quota {

        private static final String MESSAGE = "You exceeded your current quota, please check your plan and billing "
                + "details.";

        private ResponseDefinitionBuilder quotaExceeded() {
            return aResponse().withStatus(429)
                .withHeader("Content-Type", "application/json")
                .withHeader("Retry-After", "1")
                .withBody(OpenAiWire.insufficientQuota(MESSAGE));
        }

        @Test
        void endsACallAtOnceWithTheTypedFailureBeneathTheSdksException() {
            provider.always(quotaExceeded());
            run((context) -> {
                assertThatThrownBy(() -> chat(context).call("Hi")).isInstanceOf(RateLimitException.class)
                    .cause()
                    .isInstanceOfSatisfying(QuotaExceededException.class, (quota) -> {
                        assertThat(quota).hasMessage(MESSAGE);
                        assertThat(quota.status()).isEqualTo(429);
                        assertThat(quota.code()).isEqualTo("insufficient_quota");
                    });
                assertThat(provider.requests()).isEqualTo(1);
                assertThat(events().finished()).singleElement()
                    .satisfies((finished) -> assertThat(finished.event().retryable()).isFalse());
            });
        }

        @Test
        void endsAStreamAtOnceWithTheTypedFailureBeneathTheSdksException() {
            provider.always(quotaExceeded());
            run((context) -> {
                assertThatThrownBy(() -> streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10)))
                    .satisfies((thrown) -> assertThat(thrown).hasRootCauseInstanceOf(QuotaExceededException.class)
                        .rootCause()
                        .hasMessage(MESSAGE));
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void stillRetriesARateLimitOfRequests() {
            provider.script(aResponse().withStatus(429).withHeader("Retry-After", "0")
                    .withBody("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"param\":null,"
                            + "\"code\":\"rate_limit_exceeded\"}}"), completion("Hello"));
            run((context) -> {
                assertThat(chat(context).call("Hi")).isEqualTo("Hello");
                assertThat(provider.requests()).isEqualTo(2);
            });
        }
    }

    /** OpenAI opens a stream with a chunk that says the role and carries no content yet. */
    @Nested
    class StreamPreamble {

        @Test
        void retriesATransientErrorSentAfterTheRoleButBeforeAnyContent() {
            provider.script(eventStream(OpenAiWire.event(OpenAiWire.chunk(""))
                    + OpenAiWire.event(OpenAiWire.error("server_error", "Overloaded")) + OpenAiWire.event("[DONE]")),
                    stream("Hello"));
            run((context) -> {
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(provider.requests()).isEqualTo(2);
            });
        }
    }
}
