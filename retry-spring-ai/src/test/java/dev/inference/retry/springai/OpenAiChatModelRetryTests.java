package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.SseException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import reactor.core.Disposable;

/**
 * Spring AI 2.0.1's real OpenAI model, auto-configured as an application gets it, against a provider
 * speaking OpenAI's wire format on a loopback port: its exchanges are retried beneath the bean, with
 * its own client's retries off.
 */
class OpenAiChatModelRetryTests {

    /** How soon a cancelled or interrupted wait must end; the margin absorbs a busy two-core machine. */
    private static final Duration PROMPT = Duration.ofMillis(100);

    private static final Duration MARGIN = Duration.ofMillis(400);

    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private RecordingRetryEvents events;

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
        this.events = new RecordingRetryEvents();
    }

    @Nested
    class Call {

        @Test
        void retriesRateLimitsAfterTheWaitTheProviderAskedFor() {
            provider.script(rateLimited("1"), rateLimited("1"), completion("Hello"));
            run((context) -> {
                String answer = context.getBean(OpenAiChatModel.class).call("Hi");

                assertThat(answer).isEqualTo("Hello");
                assertThat(requests()).isEqualTo(3);
                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
                assertThat(events.waits()).hasSize(2)
                    .allSatisfy((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
                        .isLessThan(Duration.ofSeconds(6)));
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheSdkFailureAsTheCause() {
            provider.always(aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Try later")));
            run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class, (ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isInstanceOfSatisfying(InternalServerException.class,
                            (cause) -> assertThat(cause.statusCode()).isEqualTo(503));
                });
                // 3, not 12: the model's client, whose spring.ai.openai.max-retries is 3, makes one attempt.
                assertThat(requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheSdkThrowsIt() {
            provider.always(aResponse().withStatus(400).withBody(OpenAiWire.error("invalid_request_error", "Bad")));
            run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(BadRequestException.class,
                        (ex) -> assertThat(ex.getMessage()).isEqualTo("400: Bad"));
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void capsTheProviderWaitAtFiveMinutesAndEndsItWhenInterrupted() {
            provider.always(rateLimited("3600"));
            run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
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
                assertThat(requests()).isEqualTo(1);
            });
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesAStreamThatFailedBeforeItsFirstChunkAndDeliversEveryChunkOnce() {
            provider.script(aResponse().withStatus(503), stream("Hel", "lo", " there"));
            run((context) -> {
                List<String> chunks = context.getBean(OpenAiChatModel.class).stream("Hi").collectList()
                    .block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello there");
                assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo", " there");
                assertThat(requests()).isEqualTo(2);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheExhaustionAsTheSdkSignalsAFailure() {
            provider.always(aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Try later")));
            run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                // The SDK signals every failure of a stream in a CompletionException, its own included.
                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> assertThat(ex.getCause())
                        .isInstanceOf(InternalServerException.class));
                assertThat(requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheSdkSignalsIt() {
            provider.always(aResponse().withStatus(400).withBody(OpenAiWire.error("invalid_request_error", "Bad")));
            run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                assertThatThrownBy(() -> model.stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(BadRequestException.class);
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void deliversTheFailureOfAStreamCutAfterItsFirstChunkWithoutRetrying() throws Exception {
            try (CutStreamServer cutting = new CutStreamServer(OpenAiWire.event(OpenAiWire.chunk("Hel")))) {
                runAgainst(cutting.port(), (context) -> {
                    List<String> received = new CopyOnWriteArrayList<>();
                    assertThatThrownBy(() -> context.getBean(OpenAiChatModel.class)
                        .stream("Hi")
                        .doOnNext(received::add)
                        .blockLast(Duration.ofSeconds(10))).hasRootCauseInstanceOf(IOException.class);

                    assertThat(received).containsExactly("Hel");
                    assertThat(cutting.requests()).isEqualTo(1);
                });
            }
        }

        @Test
        void endsTheWaitAndMakesNoFurtherRequestWhenTheSubscriptionIsDisposed() {
            provider.always(rateLimited("3600"));
            run((context) -> {
                RetryTimer timer = context.getBean(RetryTimer.class);
                Disposable subscription = context.getBean(OpenAiChatModel.class).stream("Hi").subscribe();
                awaitTrue(() -> timer.pendingWaits() == 1);

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(FIVE_MINUTES);
                long disposed = System.nanoTime();
                subscription.dispose();
                awaitTrue(() -> timer.pendingWaits() == 0, PROMPT.plus(MARGIN));

                assertThat(Duration.ofNanos(System.nanoTime() - disposed)).isLessThan(PROMPT.plus(MARGIN));
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void retriesATransientErrorTheProviderSentBeforeAnyContent() {
            provider.script(aResponse().withHeader("Content-Type", "text/event-stream")
                .withBody(OpenAiWire.event(OpenAiWire.error("server_error", "Overloaded"))), stream("Hello"));
            run((context) -> {
                List<String> chunks = context.getBean(OpenAiChatModel.class).stream("Hi").collectList()
                    .block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(requests()).isEqualTo(2);
            });
        }

        @Test
        void passesAPermanentErrorTheProviderSentBeforeAnyContentThroughAsTheSdkThrowsIt() {
            provider.always(aResponse().withHeader("Content-Type", "text/event-stream")
                .withBody(OpenAiWire.event(OpenAiWire.error("invalid_request_error", "Bad"))
                        + OpenAiWire.event("[DONE]")));
            run((context) -> {
                assertThatThrownBy(() -> context.getBean(OpenAiChatModel.class).stream("Hi").blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(SseException.class)
                    .hasMessage("200: Bad");
                assertThat(requests()).isEqualTo(1);
            });
        }
    }

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        runAgainst(provider.port(), test);
    }

    private void runAgainst(int port, ContextConsumer<AssertableApplicationContext> test) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name("openAiChatModel")
            .listener(this.events)
            .observer(this.events)
            .build();
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class,
                    ToolCallingAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
            .withPropertyValues("spring.ai.openai.base-url=http://127.0.0.1:" + port + "/v1",
                    "spring.ai.openai.api-key=test", "spring.ai.openai.chat.max-retries=0")
            .withBean(ChatModelRetriers.class,
                    () -> (name) -> name.equals("openAiChatModel") ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    private static int requests() {
        return provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    private static ResponseDefinitionBuilder rateLimited(String retryAfter) {
        return aResponse().withStatus(429)
            .withHeader("Retry-After", retryAfter)
            .withBody(OpenAiWire.error("requests", "Rate limit reached"));
    }

    private static ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.completion(content));
    }

    private static ResponseDefinitionBuilder stream(String... contents) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(OpenAiWire.stream(List.of(contents)));
    }

    private static void awaitTrue(BooleanSupplier condition) {
        awaitTrue(condition, Duration.ofSeconds(10));
    }

    private static void awaitTrue(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within " + timeout);
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }
}
