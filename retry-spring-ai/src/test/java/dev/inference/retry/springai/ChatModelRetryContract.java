package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ShouldRetryHeader;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.autoconfigure.RetryTags;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * What the call of every Spring AI chat model retried beneath its bean does, whatever its provider and
 * its client: the real model, auto-configured as an application gets it, against a provider speaking
 * that provider's wire format on a loopback port, has its exchanges retried with its own client's
 * retries off. A subclass per provider says how the provider is reached and what its wire format and
 * exceptions look like; {@link SseChatModelRetryContract} adds what the models that stream server-sent
 * events do with their streams.
 */
public abstract class ChatModelRetryContract {

    /** How soon a cancelled or interrupted wait must end; the margin absorbs a busy two-core machine. */
    public static final Duration PROMPT = Duration.ofMillis(100);

    public static final Duration MARGIN = Duration.ofMillis(400);

    public static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    private RecordingRetryEvents events;

    /** Returns the provider, which the subclass registers as a static extension. */
    protected abstract ScriptedProvider provider();

    /** Returns the name of the model's bean. */
    protected abstract String beanName();

    /** Returns a runner with the provider's auto-configurations, its model pointed at this port. */
    protected abstract ApplicationContextRunner runnerAgainst(int port);

    /** Returns a successful answer to a call. */
    protected abstract ResponseDefinitionBuilder completion(String content);

    /** Returns a successful stream with one chunk per piece of content. */
    protected abstract ResponseDefinitionBuilder stream(String... contents);

    /** Returns the provider's error body, with the error's type where the provider's errors have one. */
    protected abstract String errorBody(String type, String message);

    /** Returns the provider's error type for a transient server failure. */
    protected abstract String serverErrorType();

    /** Returns the exception the model throws for a 5xx status. */
    protected abstract Class<? extends RuntimeException> serverErrorException();

    /** Returns the exception the model throws for a 400 status. */
    protected abstract Class<? extends RuntimeException> badRequestException();

    /** Returns the message of the model's exception for this status and error body. */
    protected abstract String thrownMessage(int status, String errorBody);

    /** Returns what the model's stream signals for a failure of its exchange, as its client wraps it. */
    protected Throwable unwrapStreamFailure(Throwable signalled) {
        return signalled;
    }

    /** Returns the provider's answer with this error status, its body the provider's error body. */
    public ResponseDefinitionBuilder error(int status, String type, String message) {
        return aResponse().withStatus(status).withBody(errorBody(type, message));
    }

    @BeforeEach
    public void resetProvider() {
        provider().resetAll();
        this.events = new RecordingRetryEvents();
    }

    @Nested
    public class Call {

        @Test
        void retriesRateLimitsAfterTheWaitTheProviderAskedFor() {
            provider().script(rateLimited("1"), rateLimited("1"), completion("Hello"));
            run((context) -> {
                String answer = chat(context).call("Hi");

                assertThat(answer).isEqualTo("Hello");
                assertThat(provider().requests()).isEqualTo(3);
                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
                assertThat(events.waits()).hasSize(2)
                    .allSatisfy((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
                        .isLessThan(Duration.ofSeconds(6)));
                assertThat(events.finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.INVOKE);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheFailureAsTheModelThrowsItAsTheCause() {
            provider().always(serverError());
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOf(serverErrorException())
                        .hasMessage(thrownMessage(503, errorBody(serverErrorType(), "Try later")))
                        .cause()
                        .isInstanceOfSatisfying(HttpStatusException.class,
                                (typed) -> assertThat(typed.status()).isEqualTo(503));
                });
                // 3, not 12: the model's client, which would retry on its own, makes one attempt.
                assertThat(provider().requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheModelThrowsIt() {
            provider().always(badRequest());
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(badRequestException())
                    .hasMessage(thrownMessage(400, errorBody("invalid_request_error", "Bad")))
                    .hasNoCause();
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void makesOneRequestWhenTheProviderSaysAFailureMustNotBeRetried() {
            provider().always(serverError().withHeader(ShouldRetryHeader.NAME, "false"));
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(serverErrorException())
                    .isNotInstanceOf(ExhaustedException.class);
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void retriesAsTheStatusSaysWhenTheProviderSaysAFailureMayBeRetried() {
            provider().always(serverError().withHeader(ShouldRetryHeader.NAME, "true"));
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.attempts()).isEqualTo(3));
                assertThat(provider().requests()).isEqualTo(3);
            });
        }

        @Test
        void capsTheProviderWaitAtFiveMinutesAndEndsItWhenInterrupted() {
            provider().always(rateLimited("3600"));
            run((context) -> {
                ChatModel model = chat(context);
                BlockedCall call = BlockedCall.start(() -> model.call("Hi"));
                awaitTrue(() -> !events.scheduled().isEmpty());

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                Duration ended = call.interruptAndJoin(PROMPT.plus(MARGIN));

                assertThat(call.isAlive()).isFalse();
                assertThat(ended).isLessThan(PROMPT.plus(MARGIN));
                assertThat(call.thrown()).isInstanceOf(CancellationException.class);
                assertThat(call.wasStillInterrupted()).isTrue();
                assertThat(provider().requests()).isEqualTo(1);
            });
        }
    }

    /**
     * WireMock's own faults, which break the exchange the ways networks do: each attempt is one request,
     * and a response that broke before its content began is a network failure, retried.
     */
    @Nested
    public class TransportFaults {

        @ParameterizedTest(name = "{0}")
        @EnumSource(Operation.class)
        void makesExactlyMaxAttemptsRequestsWhenEveryConnectionIsResetAfterOneWasPooled(Operation operation) {
            provider().script(answer(operation, "Hello"), aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
            run((context) -> {
                // An exchange that succeeded leaves its connection in the client's pool for the next one.
                assertThat(exchange(context, operation)).isEqualTo("Hello");

                Throwable thrown = catchThrowable(() -> exchange(context, operation));

                assertThat((operation == Operation.STREAM) ? unwrapStreamFailure(thrown) : thrown)
                    .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> assertThat(ex.attempts()).isEqualTo(3));
                assertThat(provider().requests()).isEqualTo(1 + 3);
                assertThat(events().finished()).extracting((finished) -> RetryTags.error(finished.event()))
                    .containsExactly(RetryTags.NO_ERROR, "network", "network", "network");
            });
        }

        @ParameterizedTest(name = "{0} on {1}")
        @MethodSource("dev.inference.retry.springai.ChatModelRetryContract#brokenResponses")
        void retriesAResponseThatBrokeBeforeItsContentAsANetworkFailure(Fault fault, Operation operation) {
            provider().script(aResponse().withFault(fault), answer(operation, "Hello"));
            run((context) -> {
                assertThat(exchange(context, operation)).isEqualTo("Hello");

                assertThat(provider().requests()).isEqualTo(2);
                assertThat(events().finished()).extracting((finished) -> finished.event().retryable(),
                        (finished) -> RetryTags.error(finished.event()))
                    .containsExactly(tuple(true, "network"), tuple(false, RetryTags.NO_ERROR));
            });
        }
    }

    /** WireMock's faults that break a response before its content began, on each operation. */
    static Stream<Arguments> brokenResponses() {
        return Stream
            .of(Fault.MALFORMED_RESPONSE_CHUNK, Fault.EMPTY_RESPONSE, Fault.RANDOM_DATA_THEN_CLOSE)
            .flatMap((fault) -> Stream.of(Arguments.of(fault, Operation.INVOKE),
                    Arguments.of(fault, Operation.STREAM)));
    }

    /** A successful answer to a call or a stream, whose content is this. */
    private ResponseDefinitionBuilder answer(Operation operation, String content) {
        return (operation == Operation.INVOKE) ? completion(content) : stream(content);
    }

    /** Calls the model, or streams from it to the end; returns the content received. */
    private String exchange(AssertableApplicationContext context, Operation operation) {
        if (operation == Operation.INVOKE) {
            return chat(context).call("Hi");
        }
        List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));
        return String.join("", Objects.requireNonNull(chunks));
    }

    /** Returns what the retrier of the model's bean reported in this test. */
    public RecordingRetryEvents events() {
        return this.events;
    }

    /** Runs a test against the provider, with the model's bean retried with three attempts. */
    public void run(ContextConsumer<AssertableApplicationContext> test) {
        runAgainst(provider().port(), test);
    }

    /** Runs a test against a provider on this port, with the model's bean retried with three attempts. */
    public void runAgainst(int port, ContextConsumer<AssertableApplicationContext> test) {
        runRetried(runnerAgainst(port), test);
    }

    /** Runs a test in a context this runner started, with the model's bean retried with three attempts. */
    public void runRetried(ApplicationContextRunner runner, ContextConsumer<AssertableApplicationContext> test) {
        runRetried(runner, UnaryOperator.identity(), test);
    }

    /**
     * Runs a test against the provider, with the model's bean retried with three attempts and settings
     * of the test's own, such as a cool-down store.
     */
    public void runWith(UnaryOperator<Retrier.Builder> settings, ContextConsumer<AssertableApplicationContext> test) {
        runRetried(runnerAgainst(provider().port()), settings, test);
    }

    private void runRetried(ApplicationContextRunner runner, UnaryOperator<Retrier.Builder> settings,
            ContextConsumer<AssertableApplicationContext> test) {
        Retrier retrier = settings.apply(Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name(beanName())
            .listener(this.events)
            .observer(this.events))
            .build();
        runner
            .withBean(ModelRetriers.class,
                    () -> (name) -> name.equals(beanName()) ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    public ChatModel chat(AssertableApplicationContext context) {
        return context.getBean(beanName(), ChatModel.class);
    }

    public StreamingChatModel streaming(AssertableApplicationContext context) {
        return context.getBean(beanName(), StreamingChatModel.class);
    }

    public ResponseDefinitionBuilder rateLimited(String retryAfter) {
        return error(429, "rate_limit_error", "Rate limit reached").withHeader("Retry-After", retryAfter);
    }

    public ResponseDefinitionBuilder serverError() {
        return error(503, serverErrorType(), "Try later");
    }

    public ResponseDefinitionBuilder badRequest() {
        return error(400, "invalid_request_error", "Bad");
    }
}
