package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import reactor.core.Disposable;

/**
 * What every Spring AI chat model retried beneath its bean does, whatever its provider: the real model,
 * auto-configured as an application gets it, against a provider speaking that provider's wire format
 * on a loopback port, has its exchanges retried with its own client's retries off. A subclass per
 * provider says how the provider is reached and what its wire format and exceptions look like.
 */
abstract class ChatModelRetryContract {

    /** How soon a cancelled or interrupted wait must end; the margin absorbs a busy two-core machine. */
    private static final Duration PROMPT = Duration.ofMillis(100);

    private static final Duration MARGIN = Duration.ofMillis(400);

    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    private RecordingRetryEvents events;

    /** Returns the provider, which the subclass registers as a static extension. */
    abstract ScriptedProvider provider();

    /** Returns the name of the model's bean. */
    abstract String beanName();

    /** Returns a runner with the provider's auto-configurations, its model pointed at this port. */
    abstract ApplicationContextRunner runnerAgainst(int port);

    /** Returns a successful answer to a call. */
    abstract ResponseDefinitionBuilder completion(String content);

    /** Returns a successful stream with one chunk per piece of content. */
    abstract ResponseDefinitionBuilder stream(String... contents);

    /** Returns the provider's error body. */
    abstract String errorBody(String type, String message);

    /** Returns the provider's error type for a transient server failure. */
    abstract String serverErrorType();

    /** Returns a successful stream whose first event, before any content, is an error of this type. */
    abstract String streamWithErrorFirst(String type, String message);

    /** Returns the first event of content of a stream, its text being this. */
    abstract String firstChunkOfContent(String content);

    /** Returns the exception the provider's SDK throws for a 5xx status. */
    abstract Class<? extends RuntimeException> serverErrorException();

    /** Returns the exception the provider's SDK throws for a 400 status, with this error body. */
    abstract Class<? extends RuntimeException> badRequestException();

    /** Returns the exception the provider's SDK throws for an error as a stream's first event. */
    abstract Class<? extends RuntimeException> inBandErrorException();

    /** Returns the message of the SDK's exception for this status and error body. */
    abstract String sdkMessage(int status, String errorBody);

    /** Returns what the model's stream signals for a failure of its exchange, as the SDK wraps it. */
    abstract Throwable unwrapStreamFailure(Throwable signalled);

    @BeforeEach
    void resetProvider() {
        provider().resetAll();
        this.events = new RecordingRetryEvents();
    }

    @Nested
    class Call {

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
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheSdkFailureAsTheCause() {
            provider().always(serverError());
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOf(serverErrorException())
                        .hasMessage(sdkMessage(503, errorBody(serverErrorType(), "Try later")));
                });
                // 3, not 12: the model's client, which would retry on its own, makes one attempt.
                assertThat(provider().requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheSdkThrowsIt() {
            provider().always(badRequest());
            run((context) -> {
                ChatModel model = chat(context);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOf(badRequestException())
                    .hasMessage(sdkMessage(400, errorBody("invalid_request_error", "Bad")));
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void capsTheProviderWaitAtFiveMinutesAndEndsItWhenInterrupted() {
            provider().always(rateLimited("3600"));
            run((context) -> {
                ChatModel model = chat(context);
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean stillInterrupted = new AtomicBoolean();
                Thread caller = new Thread(() -> {
                    try {
                        model.call("Hi");
                    }
                    catch (RuntimeException ex) {
                        thrown.set(ex);
                        stillInterrupted.set(Thread.currentThread().isInterrupted());
                    }
                });
                caller.start();
                awaitTrue(() -> !events.scheduled().isEmpty());

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                long interrupted = System.nanoTime();
                caller.interrupt();
                caller.join(PROMPT.plus(MARGIN).toMillis());

                assertThat(caller.isAlive()).isFalse();
                assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(PROMPT.plus(MARGIN));
                assertThat(thrown.get()).isInstanceOf(CancellationException.class);
                assertThat(stillInterrupted).isTrue();
                assertThat(provider().requests()).isEqualTo(1);
            });
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesAStreamThatFailedBeforeItsFirstChunkAndDeliversEveryChunkOnce() {
            provider().script(aResponse().withStatus(503), stream("Hel", "lo", " there"));
            run((context) -> {
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello there");
                assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo", " there");
                assertThat(provider().requests()).isEqualTo(2);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheExhaustionAsTheSdkSignalsAFailure() {
            provider().always(serverError());
            run((context) -> {
                StreamingChatModel model = streaming(context);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .satisfies((signalled) -> assertThat(unwrapStreamFailure(signalled))
                        .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> assertThat(ex.getCause())
                            .isInstanceOf(serverErrorException())));
                assertThat(provider().requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheSdkSignalsIt() {
            provider().always(badRequest());
            run((context) -> {
                StreamingChatModel model = streaming(context);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .satisfies((signalled) -> assertThat(unwrapStreamFailure(signalled))
                        .isInstanceOf(badRequestException()));
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void deliversTheFailureOfAStreamCutAfterItsFirstChunkWithoutRetrying() throws Exception {
            try (CutStreamServer cutting = new CutStreamServer(firstChunkOfContent("Hel"))) {
                runAgainst(cutting.port(), (context) -> {
                    List<String> received = new CopyOnWriteArrayList<>();
                    assertThatThrownBy(() -> streaming(context).stream("Hi")
                        .doOnNext(received::add)
                        .blockLast(Duration.ofSeconds(10))).hasRootCauseInstanceOf(IOException.class);

                    assertThat(received).containsExactly("Hel");
                    assertThat(cutting.requests()).isEqualTo(1);
                });
            }
        }

        @Test
        void endsTheWaitAndMakesNoFurtherRequestWhenTheSubscriptionIsDisposed() {
            provider().always(rateLimited("3600"));
            run((context) -> {
                RetryTimer timer = context.getBean(RetryTimer.class);
                Disposable subscription = streaming(context).stream("Hi").subscribe();
                awaitTrue(() -> timer.pendingWaits() == 1);

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                long disposed = System.nanoTime();
                subscription.dispose();
                awaitTrue(() -> timer.pendingWaits() == 0, PROMPT.plus(MARGIN));

                assertThat(Duration.ofNanos(System.nanoTime() - disposed)).isLessThan(PROMPT.plus(MARGIN));
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void retriesATransientErrorTheProviderSentBeforeAnyContent() {
            provider().script(eventStream(streamWithErrorFirst(serverErrorType(), "Overloaded")), stream("Hello"));
            run((context) -> {
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(provider().requests()).isEqualTo(2);
            });
        }

        @Test
        void passesAPermanentErrorTheProviderSentBeforeAnyContentThroughAsTheSdkThrowsIt() {
            provider().always(eventStream(streamWithErrorFirst("invalid_request_error", "Bad")));
            run((context) -> {
                assertThatThrownBy(() -> streaming(context).stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(inBandErrorException())
                    .hasMessage(sdkMessage(200, errorBody("invalid_request_error", "Bad")));
                assertThat(provider().requests()).isEqualTo(1);
            });
        }
    }

    /** Runs a test against the provider, with the model's bean retried with three attempts. */
    void run(ContextConsumer<AssertableApplicationContext> test) {
        runAgainst(provider().port(), test);
    }

    private void runAgainst(int port, ContextConsumer<AssertableApplicationContext> test) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name(beanName())
            .listener(this.events)
            .observer(this.events)
            .build();
        runnerAgainst(port)
            .withBean(ChatModelRetriers.class,
                    () -> (name) -> name.equals(beanName()) ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    private ChatModel chat(AssertableApplicationContext context) {
        return context.getBean(beanName(), ChatModel.class);
    }

    StreamingChatModel streaming(AssertableApplicationContext context) {
        return context.getBean(beanName(), StreamingChatModel.class);
    }

    private ResponseDefinitionBuilder rateLimited(String retryAfter) {
        return aResponse().withStatus(429)
            .withHeader("Retry-After", retryAfter)
            .withBody(errorBody("rate_limit_error", "Rate limit reached"));
    }

    private ResponseDefinitionBuilder serverError() {
        return aResponse().withStatus(503).withBody(errorBody(serverErrorType(), "Try later"));
    }

    private ResponseDefinitionBuilder badRequest() {
        return aResponse().withStatus(400).withBody(errorBody("invalid_request_error", "Bad"));
    }

    static ResponseDefinitionBuilder eventStream(String body) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(body);
    }
}
