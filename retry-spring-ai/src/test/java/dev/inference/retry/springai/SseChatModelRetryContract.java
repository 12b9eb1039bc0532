package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.autoconfigure.RetryTimer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.Interceptor;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;

/**
 * What the stream of a Spring AI chat model retried beneath its bean does when the model's SDK reads
 * the provider's answer as server-sent events, on top of what every retried model's call does
 * ({@link ChatModelRetryContract}): the SDK signals the errors the provider sends in-band as typed
 * events, and the retry waits on the {@link RetryTimer}. A subclass per provider says what its events
 * and its SDK's exceptions look like.
 */
public abstract class SseChatModelRetryContract extends ChatModelRetryContract {

    /** Returns a successful stream whose first event, before any content, is an error of this type. */
    protected abstract String streamWithErrorFirst(String type, String message);

    /** Returns the first event of content of a stream, its text being this. */
    protected abstract String firstChunkOfContent(String content);

    /** Returns the exception the provider's SDK throws for an error as a stream's first event. */
    protected abstract Class<? extends RuntimeException> inBandErrorException();

    /** Returns the runner with this interceptor added to the model's OkHttp clients by Spring AI's customizer. */
    protected abstract ApplicationContextRunner withInterceptor(ApplicationContextRunner runner,
            Interceptor interceptor);

    /**
     * Tells whether disposing the model's stream closes its SDK's stream, which is how a wait beneath the
     * model learns of it: so every release the starter supports, but one that does not.
     */
    protected boolean disposingTheStreamClosesIt() {
        return true;
    }

    @Nested
    public class Stream {

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
            assumeTrue(disposingTheStreamClosesIt(),
                    "this Spring AI release does not close the SDK's stream when its Flux is disposed");
            provider().always(rateLimited("3600"));
            run((context) -> {
                RetryTimer timer = context.getBean(RetryTimer.class);
                Disposable subscription = streaming(context).stream("Hi").subscribe();
                awaitTrue(() -> timer.pendingWaits() == 1);

                assertThat(events().scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
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
                    .hasMessage(thrownMessage(200, errorBody("invalid_request_error", "Bad")));
                assertThat(provider().requests()).isEqualTo(1);
            });
        }
    }

    /** Spring AI's OkHttp transport, made again to send each request once, keeps what it was built with. */
    @Nested
    public class Transport {

        @Test
        void keepsTheInterceptorsTheApplicationGaveItOnEveryAttemptOfACallAndOfAStream() {
            provider().script(aResponse().withStatus(503), completion("Hello"), aResponse().withStatus(503),
                    stream("Hello"));
            ApplicationContextRunner customized = withInterceptor(runnerAgainst(provider().port()), (chain) -> chain
                .proceed(chain.request().newBuilder().header("X-Customized", "kept").build()));
            runRetried(customized, (context) -> {
                assertThat(context.getBean(beanName(), ChatModel.class).call("Hi")).isEqualTo("Hello");
                List<String> chunks = streaming(context).stream("Hi").collectList().block(Duration.ofSeconds(10));

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                assertThat(provider().getAllServeEvents()).hasSize(4)
                    .allSatisfy((served) -> assertThat(served.getRequest().getHeader("X-Customized")).isEqualTo("kept"));
            });
        }
    }

    public static ResponseDefinitionBuilder eventStream(String body) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(body);
    }
}
