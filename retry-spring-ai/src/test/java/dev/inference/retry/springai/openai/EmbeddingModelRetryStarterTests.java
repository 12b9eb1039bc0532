package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint;
import dev.inference.retry.autoconfigure.InferenceRetryEndpointAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.springai.BlockedCall;
import dev.inference.retry.springai.MeterCounts;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.autoconfigure.SpringAiClientRetriesDefaults;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.model.openai.autoconfigure.OpenAiEmbeddingAutoConfiguration;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring AI's real OpenAI embedding model in an application configured by {@code inference.retry.*}
 * alone, with the starter's auto-configurations, the meters and the endpoint: the bean gets the policy of
 * its bean name, is validated at startup, counted and listed under that name, and its client's own
 * retries are off unless the application asks for them (which fails startup).
 */
class EmbeddingModelRetryStarterTests {

    private static final String BEAN = "openAiEmbeddingModel";

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OpenAiWire.EMBEDDINGS);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withInitializer((context) -> new SpringAiClientRetriesDefaults()
            .postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
        .withConfiguration(AutoConfigurations.of(OpenAiEmbeddingAutoConfiguration.class, MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
                InferenceRetryMetricsAutoConfiguration.class, InferenceRetryEndpointAutoConfiguration.class,
                SpringAiModelRetriersAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
        .withPropertyValues("spring.ai.openai.base-url=http://127.0.0.1:" + provider.port() + "/v1",
                "spring.ai.openai.api-key=test", "management.endpoints.web.exposure.include=inferenceretry",
                "inference.retry.stable-retries=0", "inference.retry.stable-delay=20ms",
                "inference.retry.max-attempts=5", "inference.retry.max-delay=20ms");

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
    }

    @Nested
    class GivesTheBeanThePolicyOfItsName {

        @Test
        void aMaxAttemptsOfThreeMakesThreeRequestsAndThenThrowsExhausted() {
            provider.always(unavailable());
            runner.withPropertyValues("inference.retry.clients.openAiEmbeddingModel.max-attempts=3").run((context) -> {
                OpenAiEmbeddingModel model = context.getBean(OpenAiEmbeddingModel.class);

                assertThatThrownBy(() -> model.embed("Hello")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.attempts()).isEqualTo(3));
                assertThat(provider.requests()).isEqualTo(3);
            });
        }
    }

    @Nested
    class ReportsTheBeanUnderItsName {

        @Test
        void countsEachAttemptOfACallAsAnInvokeAttempt() {
            provider.script(unavailable(), embeddings());
            runner.run((context) -> {
                context.getBean(OpenAiEmbeddingModel.class).embed("Hello");

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(count(registry, "retryable_failure")).isEqualTo(1);
                assertThat(count(registry, "success")).isEqualTo(1);
            });
        }

        @Test
        void recordsAProvidersLongRetryAfterAsTheCappedWaitAndEndsItOnInterrupt() throws InterruptedException {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600")
                .withBody(OpenAiWire.error("rate_limit_exceeded", "Slow down")));
            runner.withPropertyValues("inference.retry.max-delay=5m").run((context) -> {
                OpenAiEmbeddingModel model = context.getBean(OpenAiEmbeddingModel.class);
                Timer backoff = context.getBean(MeterRegistry.class)
                    .get("inference.retry.backoff")
                    .tags("client", BEAN, "operation", "invoke")
                    .timer();
                BlockedCall call = BlockedCall.start(() -> model.embed("Hello"));
                awaitTrue(() -> backoff.count() == 1);

                assertThat(backoff.totalTime(TimeUnit.SECONDS)).isEqualTo(300);
                Duration ended = call.interruptAndJoin(Duration.ofSeconds(2));
                assertThat(call.isAlive()).isFalse();
                assertThat(ended).isLessThan(Duration.ofMillis(500));
                assertThat(call.thrown()).isInstanceOf(CancellationException.class);
                assertThat(provider.requests()).isEqualTo(1);
            });
        }

        @Test
        void theEndpointListsTheBeanWithItsPolicy() {
            runner.withPropertyValues("inference.retry.clients.openAiEmbeddingModel.max-attempts=3").run((context) -> {
                InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);

                assertThat(endpoint.clients().clients()).containsOnlyKeys(BEAN);
                assertThat(endpoint.client(BEAN).policy().maxAttempts()).isEqualTo(3);
            });
        }
    }

    @Nested
    class FailsStartup {

        @Test
        void whenTheBeanHasNoCompletePolicyNamingItAsAnEmbeddingModel() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OpenAiEmbeddingAutoConfiguration.class,
                        InferenceRetryAutoConfiguration.class, SpringAiModelRetriersAutoConfiguration.class,
                        SpringAiRetryAutoConfiguration.class))
                .withPropertyValues("spring.ai.openai.api-key=test", "spring.ai.openai.embedding.max-retries=0")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidRetryPropertyException.class)
                    .hasMessageStartingWith("EmbeddingModel bean 'openAiEmbeddingModel': "
                            + "inference.retry.stable-retries is not set"));
        }

        @Test
        void whenTheClientsOwnRetriesInEffectAskForRetriesNamingTheProperty() {
            runner.withPropertyValues("spring.ai.openai.embedding.max-retries=2")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ModelClientRetriesException.class, (ex) -> {
                        assertThat(ex.property()).isEqualTo("spring.ai.openai.embedding.max-retries");
                        assertThat(ex.maxRetries()).isEqualTo(2);
                        assertThat(ex).hasMessageStartingWith("EmbeddingModel bean 'openAiEmbeddingModel': "
                                + "spring.ai.openai.embedding.max-retries = 2 is invalid: must be 0 for an "
                                + "embedding model that inference-retry retries");
                    }));
        }
    }

    @Nested
    class LeavesTheBeanAlone {

        @Test
        void whenItsEntrySwitchesItOffKeepingTheClientsOwnRetries() {
            runner.withPropertyValues("inference.retry.clients.openAiEmbeddingModel.enabled=false",
                    "spring.ai.openai.embedding.max-retries=2").run((context) -> {
                        assertThat(context).hasNotFailed();
                        OpenAiEmbeddingModel model = context.getBean(OpenAiEmbeddingModel.class);

                        assertThat(OpenAiEmbeddingModelRebuild.isRetried(model, BEAN)).isFalse();
                        assertThat(OpenAiEmbeddingModelRebuild.clientRetries(model, BEAN)).isEqualTo(2);
                        assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).isEmpty();
                    });
        }

        @Test
        void whenSpringAiRetryIsOffAcceptingItsEntryAndKeepingTheClientsOwnRetries() {
            runner.withPropertyValues("inference.retry.spring-ai.enabled=false",
                    "inference.retry.clients.openAiEmbeddingModel.max-attempts=3").run((context) -> {
                        assertThat(context).hasNotFailed();
                        OpenAiEmbeddingModel model = context.getBean(OpenAiEmbeddingModel.class);

                        assertThat(OpenAiEmbeddingModelRebuild.isRetried(model, BEAN)).isFalse();
                        assertThat(OpenAiEmbeddingModelRebuild.clientRetries(model, BEAN)).isEqualTo(3);
                        assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).isEmpty();
                    });
        }
    }

    private static double count(MeterRegistry registry, String outcome) {
        return MeterCounts.count(registry.find("inference.retry.attempts")
            .tags("client", BEAN, "operation", "invoke", "outcome", outcome));
    }

    private static ResponseDefinitionBuilder unavailable() {
        return aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Try later"));
    }

    private static ResponseDefinitionBuilder embeddings() {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.embeddings());
    }
}
