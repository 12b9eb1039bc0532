package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.core.publisher.SignalType;

/**
 * An application's own chat model, calling a provider on loopback through a real {@code RestClient} and
 * {@code WebClient}, retried above its HTTP exchange by the auto-configuration's proxy of its class.
 */
class ChatModelProxyRetryTests {

    private static final String BEAN = "appChatModel";

    private static final Duration TEN_MS = Duration.ofMillis(10);

    /** How soon a cancelled or interrupted wait must end, plus a margin for a busy two-core machine. */
    private static final long CANCELLED_WITHIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100 + 400);

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private final RecordingRetryEvents events = new RecordingRetryEvents();

    /** The bean that the application's settings retry. */
    private String retriedBean = BEAN;

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
    }

    private ApplicationContextRunner runner(int maxAttempts) {
        return runner(maxAttempts, provider.port());
    }

    private ApplicationContextRunner runner(int maxAttempts, int port) {
        Retrier retrier = Retrier.builder(new Policy(0, TEN_MS, maxAttempts, TEN_MS))
            .name(BEAN)
            .listener(this.events)
            .observer(this.events)
            .build();
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
            .withBean(ModelRetriers.class,
                    () -> (name) -> name.equals(this.retriedBean) ? Optional.of(retrier) : Optional.empty())
            .withBean(BEAN, RestClientChatModel.class,
                    () -> new RestClientChatModel("http://127.0.0.1:" + port));
    }

    private static int requests() {
        return provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    private static ResponseDefinitionBuilder status(int status) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json")
            .withBody(OpenAiWire.error("error", "HTTP " + status));
    }

    private static ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.completion(content));
    }

    private static ResponseDefinitionBuilder stream(String... contents) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(OpenAiWire.stream(List.of(contents)));
    }

    private static String text(ChatResponse response) {
        return response.getResult().getOutput().getText();
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 10 s for the condition").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Nested
    class Call {

        @Test
        void waitsTheRetryAfterOfEach429AndMakesOneRequestPerAttempt() {
            provider.script(status(429).withHeader("Retry-After", "1"), status(429).withHeader("Retry-After", "1"),
                    completion("Hello"));
            runner(5).run((context) -> {
                RestClientChatModel model = context.getBean(RestClientChatModel.class);

                assertThat(text(model.call(new Prompt("Hi")))).isEqualTo("Hello");
                assertThat(requests()).isEqualTo(3);
                assertThat(events.waits()).hasSize(2).allSatisfy((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheRestClientsExceptionAsCause() {
            provider.always(status(503));
            runner(3).run((context) -> {
                RestClientChatModel model = context.getBean(RestClientChatModel.class);

                assertThatThrownBy(() -> model.call(new Prompt("Hi"))).isExactlyInstanceOf(ExhaustedException.class)
                    .satisfies((ex) -> {
                        ExhaustedException exhausted = (ExhaustedException) ex;
                        assertThat(exhausted.attempts()).isEqualTo(3);
                        assertThat(exhausted.getCause()).isExactlyInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
                        assertThat(exhausted.getSuppressed()).hasSize(2)
                            .allSatisfy((earlier) -> assertThat(earlier)
                                .isExactlyInstanceOf(HttpServerErrorException.ServiceUnavailable.class));
                    });
                assertThat(requests()).isEqualTo(3);
            });
        }

        @Test
        void throwsAPermanentFailureAsTheRestClientThrewItAfterOneRequest() {
            provider.always(status(400));
            runner(3).run((context) -> {
                RestClientChatModel model = context.getBean(RestClientChatModel.class);

                assertThatThrownBy(() -> model.call(new Prompt("Hi")))
                    .isExactlyInstanceOf(HttpClientErrorException.BadRequest.class)
                    .hasNoCause()
                    .satisfies((ex) -> assertThat(ex.getSuppressed()).isEmpty());
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void tellsTheListenersOfTheTypedFailureWithTheRestClientsExceptionAsItsCause() {
            provider.script(status(503), completion("Hello"));
            runner(3).run((context) -> {
                context.getBean(RestClientChatModel.class).call(new Prompt("Hi"));

                AttemptEvent failed = events.finished().get(0).event();
                assertThat(failed.operation()).isEqualTo(Operation.INVOKE);
                assertThat(failed.retryable()).isTrue();
                assertThat(failed.failure()).isInstanceOfSatisfying(HttpStatusException.class,
                        (typed) -> assertThat(typed.status()).isEqualTo(503))
                    .hasCauseExactlyInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
            });
        }

        @Test
        void retriesAConvenienceCallAsAWhole() {
            provider.script(status(503), completion("Hello"));
            runner(3).run((context) -> {
                assertThat(context.getBean(RestClientChatModel.class).call("Hi")).isEqualTo("Hello");
                assertThat(requests()).isEqualTo(2);
            });
        }

        @Test
        void endsAtOnceWithNoFurtherRequestWhenInterruptedDuringTheWait() throws InterruptedException {
            provider.always(status(429).withHeader("Retry-After", "3600"));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            AtomicLong ended = new AtomicLong();
            CountDownLatch done = new CountDownLatch(1);
            runner(3).run((context) -> {
                RestClientChatModel model = context.getBean(RestClientChatModel.class);
                Thread caller = new Thread(() -> {
                    try {
                        model.call(new Prompt("Hi"));
                    }
                    catch (RuntimeException ex) {
                        ended.set(System.nanoTime());
                        thrown.set(ex);
                        stillInterrupted.set(Thread.currentThread().isInterrupted());
                    }
                    finally {
                        done.countDown();
                    }
                });
                caller.start();
                await(() -> events.scheduled().size() == 1);
                assertThat(events.scheduled().get(0).delay()).isEqualTo(Duration.ofMinutes(5));

                long interrupted = System.nanoTime();
                caller.interrupt();

                assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(ended.get() - interrupted).isLessThan(CANCELLED_WITHIN_NANOS);
                assertThat(thrown.get()).isInstanceOf(CancellationException.class);
                assertThat(stillInterrupted).isTrue();
                assertThat(requests()).isEqualTo(1);
            });
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesAFailureBeforeTheFirstElementAndEmitsEveryElementOnce() {
            provider.script(status(503), stream("Hel", "lo", "!"));
            runner(3).run((context) -> {
                List<String> chunks = context.getBean(RestClientChatModel.class)
                    .stream(new Prompt("Hi"))
                    .map(ChatModelProxyRetryTests::text)
                    .collectList()
                    .block(Duration.ofSeconds(10));

                assertThat(chunks).containsExactly("Hel", "lo", "!");
                assertThat(requests()).isEqualTo(2);
                assertThat(events.finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.STREAM);
            });
        }

        @Test
        void deliversAFailureAfterTheFirstElementWithoutRetrying() throws Exception {
            try (CutStreamServer cutting = new CutStreamServer(OpenAiWire.event(OpenAiWire.chunk("Hel")))) {
                List<String> chunks = new CopyOnWriteArrayList<>();
                runner(3, cutting.port()).run((context) -> {
                            assertThatThrownBy(() -> context.getBean(RestClientChatModel.class)
                                .stream(new Prompt("Hi"))
                                .doOnNext((response) -> chunks.add(text(response)))
                                .blockLast(Duration.ofSeconds(10))).isNotInstanceOf(ExhaustedException.class);

                            assertThat(chunks).containsExactly("Hel");
                            assertThat(cutting.requests()).isEqualTo(1);
                        });
            }
        }

        @Test
        void signalsAPermanentFailureAsTheWebClientSignalledItAfterOneRequest() {
            provider.always(status(400));
            runner(3).run((context) -> {
                assertThatThrownBy(() -> context.getBean(RestClientChatModel.class)
                    .stream(new Prompt("Hi"))
                    .blockLast(Duration.ofSeconds(10))).isExactlyInstanceOf(WebClientResponseException.BadRequest.class);
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheWebClientsExceptionAsCause() {
            provider.always(status(503));
            runner(3).run((context) -> {
                assertThatThrownBy(() -> context.getBean(RestClientChatModel.class)
                    .stream(new Prompt("Hi"))
                    .blockLast(Duration.ofSeconds(10))).isInstanceOfSatisfying(ExhaustedException.class,
                            (ex) -> assertThat(ex.getCause())
                                .isExactlyInstanceOf(WebClientResponseException.ServiceUnavailable.class));
                assertThat(requests()).isEqualTo(3);
            });
        }

        @Test
        void endsAtOnceWithNoFurtherRequestWhenCancelledDuringTheWait() {
            provider.always(status(429).withHeader("Retry-After", "3600"));
            runner(3).run((context) -> {
                AtomicLong cancelled = new AtomicLong();
                Disposable subscription = context.getBean(RestClientChatModel.class)
                    .stream(new Prompt("Hi"))
                    .doFinally((signal) -> {
                        if (signal == SignalType.CANCEL) {
                            cancelled.set(System.nanoTime());
                        }
                    })
                    .subscribe();
                await(() -> events.scheduled().size() == 1);

                long cancelling = System.nanoTime();
                subscription.dispose();

                assertThat(cancelled.get() - cancelling).isBetween(0L, CANCELLED_WITHIN_NANOS);
                assertThat(requests()).isEqualTo(1);
                assertThat(events.started()).hasSize(1);
            });
        }
    }

    @Nested
    class TheBean {

        @Test
        void keepsItsClassSoThatCodeCanInjectItByClass() {
            runner(3).withBean(Greeter.class).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BEAN)).isInstanceOf(RestClientChatModel.class);
                assertThat(AopUtils.isCglibProxy(context.getBean(BEAN))).isTrue();
                assertThat(context.getBean(Greeter.class).model).isSameAs(context.getBean(BEAN));
            });
        }

        @Test
        void isLeftAsItIsWhenSpringAiModelsAreLeftAlone() {
            runner(3).withPropertyValues("inference.retry.spring-ai.enabled=false").run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BEAN)).isExactlyInstanceOf(RestClientChatModel.class);
            });
        }

        @Test
        void isLeftAsItIsWhenItHasNoRetrier() {
            retriedBean = "anotherChatModel";
            runner(3).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BEAN)).isExactlyInstanceOf(RestClientChatModel.class);
            });
        }
    }

    @Nested
    class ApplicationTranslators {

        @Test
        void areAskedBeforeTheBuiltInOnes() {
            provider.always(status(400));
            runner(3).withBean(ChatModelFailureTranslator.class, () -> (failure) -> (failure instanceof HttpClientErrorException.BadRequest)
                    ? Optional.of(new HttpStatusException(503, "our provider's 400 is an overload", null))
                    : Optional.empty())
                .run((context) -> {
                    assertThatThrownBy(() -> context.getBean(RestClientChatModel.class).call(new Prompt("Hi")))
                        .isInstanceOfSatisfying(ExhaustedException.class,
                                (ex) -> assertThat(ex.getCause()).isExactlyInstanceOf(HttpClientErrorException.BadRequest.class));
                    assertThat(requests()).isEqualTo(3);
                });
        }
    }

    /** Code that injects the model by its class. */
    static class Greeter {

        final RestClientChatModel model;

        Greeter(RestClientChatModel model) {
            this.model = model;
        }
    }
}
