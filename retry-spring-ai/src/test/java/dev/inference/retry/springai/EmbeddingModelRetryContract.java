package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.BatchingStrategy;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingOptions;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * What every Spring AI embedding model retried beneath its bean does, whatever its provider: the real
 * model, auto-configured as an application gets it, against a provider speaking that provider's wire
 * format on a loopback port, has each exchange retried with its own client's retries off, and a batched
 * {@code embed} retries each sub-batch on its own. A subclass per provider says how the provider is
 * reached and what its wire format and exceptions look like.
 */
public abstract class EmbeddingModelRetryContract {

    private RecordingRetryEvents events;

    /** Returns the provider, which the subclass registers as a static extension on the embedding path. */
    protected abstract ScriptedProvider provider();

    /** Returns the path of the provider's embedding endpoint. */
    protected abstract String path();

    /** Returns the name of the model's bean. */
    protected abstract String beanName();

    /** Returns a runner with the provider's auto-configurations, its model pointed at this port. */
    protected abstract ApplicationContextRunner runnerAgainst(int port);

    /** Returns a successful answer with one embedding for each text of one request. */
    protected abstract ResponseDefinitionBuilder embeddings();

    /** Returns the provider's answer with this error status. */
    protected abstract ResponseDefinitionBuilder error(int status, String message);

    /** Returns the exception the model throws for a 5xx status. */
    protected abstract Class<? extends RuntimeException> serverErrorException();

    /** Returns the exception the model throws for a 400 status. */
    protected abstract Class<? extends RuntimeException> badRequestException();

    @BeforeEach
    public void resetProvider() {
        provider().resetAll();
        this.events = new RecordingRetryEvents();
    }

    @Nested
    public class Call {

        @Test
        void retriesARateLimitAfterTheWaitTheProviderAskedFor() {
            provider().script(error(429, "Slow down").withHeader("Retry-After", "1"), embeddings());
            run((context) -> {
                float[] embedding = model(context).embed("Hello");

                assertThat(embedding).isNotEmpty();
                assertThat(provider().requests()).isEqualTo(2);
                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(Duration.ofSeconds(1));
                assertThat(events.waits()).singleElement()
                    .satisfies((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
                assertThat(events.finished()).extracting((finished) -> finished.event().operation())
                    .containsOnly(Operation.INVOKE);
            });
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheFailureAsTheModelThrowsItAsTheCause() {
            provider().always(error(503, "Try later"));
            run((context) -> {
                EmbeddingModel model = model(context);

                assertThatThrownBy(() -> model.embed("Hello")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> {
                            assertThat(ex.attempts()).isEqualTo(3);
                            assertThat(ex.getCause()).isInstanceOf(serverErrorException())
                                .hasRootCauseInstanceOf(HttpStatusException.class);
                        });
                // 3, not 12: the model's client, which would retry on its own, makes one attempt.
                assertThat(provider().requests()).isEqualTo(3);
            });
        }

        @Test
        void passesAPermanentFailureThroughAsTheModelThrowsIt() {
            provider().always(error(400, "Bad"));
            run((context) -> {
                EmbeddingModel model = model(context);

                assertThatThrownBy(() -> model.embed("Hello")).isInstanceOf(badRequestException());
                assertThat(provider().requests()).isEqualTo(1);
            });
        }

        @Test
        void capsTheProviderWaitAtFiveMinutesAndEndsItWhenInterrupted() throws InterruptedException {
            provider().always(error(429, "Slow down").withHeader("Retry-After", "3600"));
            run((context) -> {
                EmbeddingModel model = model(context);
                BlockedCall call = BlockedCall.start(() -> model.embed("Hello"));
                awaitTrue(() -> !events.scheduled().isEmpty());

                assertThat(events.scheduled()).extracting(RecordingRetryEvents.Scheduled::delay)
                    .containsExactly(ChatModelRetryContract.FIVE_MINUTES);
                Duration ended = call.interruptAndJoin(ChatModelRetryContract.PROMPT.plus(ChatModelRetryContract.MARGIN));

                assertThat(call.isAlive()).isFalse();
                assertThat(ended).isLessThan(ChatModelRetryContract.PROMPT.plus(ChatModelRetryContract.MARGIN));
                assertThat(call.thrown()).isInstanceOf(CancellationException.class);
                assertThat(provider().requests()).isEqualTo(1);
            });
        }
    }

    @Nested
    public class BatchedEmbed {

        /** One document per sub-batch, so that each sub-batch is one request. */
        private final BatchingStrategy oneByOne = (documents) -> documents.stream().map(List::of).toList();

        @Test
        void retriesOnlyTheSubBatchThatFailedAndNeverSendsAnEmbeddedOneAgain() {
            provider().stubFor(post(urlEqualTo(path())).willReturn(embeddings()));
            provider().stubFor(post(urlEqualTo(path())).withRequestBody(containing("second"))
                .inScenario("second")
                .whenScenarioStateIs(STARTED)
                .willReturn(error(503, "Try later"))
                .willSetStateTo("answered"));
            provider().stubFor(post(urlEqualTo(path())).withRequestBody(containing("second"))
                .inScenario("second")
                .whenScenarioStateIs("answered")
                .willReturn(embeddings()));
            run((context) -> {
                List<float[]> embeddings = model(context).embed(
                        List.of(new Document("first"), new Document("second"), new Document("third")),
                        EmbeddingOptions.builder().build(), oneByOne);

                assertThat(embeddings).hasSize(3);
                assertThat(provider().requests()).isEqualTo(4);
                assertThat(requestsContaining("first")).isEqualTo(1);
                assertThat(requestsContaining("second")).isEqualTo(2);
                assertThat(requestsContaining("third")).isEqualTo(1);
            });
        }

        private int requestsContaining(String text) {
            return provider().countRequestsMatching(
                    postRequestedFor(urlEqualTo(path())).withRequestBody(containing(text)).build())
                .getCount();
        }
    }

    /** Returns what the retrier of the model's bean reported in this test. */
    public RecordingRetryEvents events() {
        return this.events;
    }

    /** Runs a test against the provider, with the model's bean retried with three attempts. */
    public void run(ContextConsumer<AssertableApplicationContext> test) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name(beanName())
            .listener(this.events)
            .observer(this.events)
            .build();
        runnerAgainst(provider().port())
            .withBean(ModelRetriers.class,
                    () -> (name) -> name.equals(beanName()) ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    private EmbeddingModel model(AssertableApplicationContext context) {
        return context.getBean(beanName(), EmbeddingModel.class);
    }

    /** Returns an answer in the provider's JSON with this body. */
    public static ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body);
    }
}
