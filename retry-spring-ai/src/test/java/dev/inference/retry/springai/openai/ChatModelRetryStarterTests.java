package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint;
import dev.inference.retry.autoconfigure.InferenceRetryEndpointAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryOperationsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration;
import dev.inference.retry.autoconfigure.RetriedBeanType;
import dev.inference.retry.autoconfigure.observation.RetryAttemptContext;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.springai.BlockedCall;
import dev.inference.retry.springai.MeterCounts;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.autoconfigure.SpringAiClientRetriesDefaults;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring AI's real OpenAI chat model in an application configured by {@code inference.retry.*} alone,
 * with the starter's auto-configurations, the meters and the endpoint: the bean gets the policy of its
 * bean name, is validated at startup, counted and listed under that name, and its client's own retries
 * are off unless the application asks for them (which fails startup).
 */
class ChatModelRetryStarterTests {

    private static final String BEAN = "openAiChatModel";

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withInitializer((context) -> new SpringAiClientRetriesDefaults()
            .postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
        .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                InferenceRetryAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class,
                InferenceRetryEndpointAutoConfiguration.class, SpringAiModelRetriersAutoConfiguration.class,
                SpringAiRetryAutoConfiguration.class))
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
        void aMaxAttemptsOfThreeMakesThreeRequests() {
            provider.always(unavailable());
            runner.withPropertyValues("inference.retry.clients.openAiChatModel.max-attempts=3").run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                assertThatThrownBy(() -> model.call("Hi")).isInstanceOfSatisfying(ExhaustedException.class,
                        (ex) -> assertThat(ex.attempts()).isEqualTo(3));
                assertThat(requests()).isEqualTo(3);
            });
        }

        @Test
        void aCommonMaxRetriesOfTheModelsClientDoesNotMultiplyAttempts() {
            provider.always(unavailable());
            runner.withPropertyValues("inference.retry.clients.openAiChatModel.max-attempts=3",
                    "spring.ai.openai.max-retries=1").run((context) -> {
                        assertThat(context).hasNotFailed();

                        assertThatThrownBy(() -> context.getBean(OpenAiChatModel.class).call("Hi"))
                            .isInstanceOf(ExhaustedException.class);
                        assertThat(requests()).isEqualTo(3);
                    });
        }

        @Test
        void anEntryInEnvironmentVariableFormConfiguresTheCamelCaseBean() {
            provider.always(unavailable());
            runner.withPropertyValues("inference.retry.clients.openaichatmodel.max-attempts=2").run((context) -> {
                assertThatThrownBy(() -> context.getBean(OpenAiChatModel.class).call("Hi"))
                    .isInstanceOf(ExhaustedException.class);
                assertThat(requests()).isEqualTo(2);
            });
        }
    }

    @Nested
    class ReportsTheBeanUnderItsName {

        @Test
        void countsEachAttemptOfACallAsAnInvokeAttempt() {
            provider.script(unavailable(), completion());
            runner.run((context) -> {
                context.getBean(OpenAiChatModel.class).call("Hi");

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(count(registry, "inference.retry.attempts", "invoke", "retryable_failure")).isEqualTo(1);
                assertThat(count(registry, "inference.retry.attempts", "invoke", "success")).isEqualTo(1);
            });
        }

        @Test
        void countsEachAttemptOfAStreamAsAStreamAttempt() {
            provider.script(unavailable(), aResponse().withHeader("Content-Type", "text/event-stream")
                .withBody(OpenAiWire.stream(List.of("Hel", "lo"))));
            runner.run((context) -> {
                List<String> chunks = context.getBean(OpenAiChatModel.class).stream("Hi").collectList().block();

                assertThat(String.join("", chunks)).isEqualTo("Hello");
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(count(registry, "inference.retry.attempts", "stream", "retryable_failure")).isEqualTo(1);
                assertThat(count(registry, "inference.retry.attempts", "stream", "success")).isEqualTo(1);
            });
        }

        @Test
        void countsAnExhaustedCall() {
            provider.always(unavailable());
            runner.withPropertyValues("inference.retry.max-attempts=2").run((context) -> {
                assertThatThrownBy(() -> context.getBean(OpenAiChatModel.class).call("Hi"))
                    .isInstanceOf(ExhaustedException.class);

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("inference.retry.exhausted").tags("client", BEAN, "operation", "invoke")
                    .meter().measure()).extracting(Measurement::getValue).containsExactly(1.0);
            });
        }

        @Test
        void recordsAProvidersLongRetryAfterAsTheCappedWaitAndEndsItOnInterrupt() {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600")
                .withBody(OpenAiWire.error("rate_limit_exceeded", "Slow down")));
            runner.withPropertyValues("inference.retry.max-delay=5m").run((context) -> {
                OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                Timer backoff = registry.get("inference.retry.backoff").tags("client", BEAN, "operation", "invoke")
                    .timer();
                BlockedCall call = BlockedCall.start(() -> model.call("Hi"));
                awaitUntil(() -> backoff.count() == 1);

                assertThat(backoff.totalTime(TimeUnit.SECONDS)).isEqualTo(300);
                call.interruptAndJoin(Duration.ofSeconds(2));
                assertThat(call.isAlive()).isFalse();
                assertThat(call.thrown()).isInstanceOf(CancellationException.class);
                assertThat(requests()).isEqualTo(1);
            });
        }

        @Test
        void theEndpointListsTheBeanWithItsPolicy() {
            runner.withPropertyValues("inference.retry.clients.openAiChatModel.max-attempts=3").run((context) -> {
                InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);

                assertThat(endpoint.clients().clients()).containsOnlyKeys(BEAN);
                assertThat(endpoint.client(BEAN).policy().maxAttempts()).isEqualTo(3);
            });
        }
    }

    @Nested
    class GivesTheBeanTheApplicationsRetryFeatures {

        @Test
        void itsRetryBudgetShownByTheEndpoint() {
            runner.withConfiguration(AutoConfigurations.of(InferenceRetryProtectionAutoConfiguration.class))
                .withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=0.1")
                .run((context) -> assertThat(context.getBean(InferenceRetryEndpoint.class).client(BEAN).budget())
                    .isNotNull());
        }

        @Test
        void anObservationPerAttemptUnderTheBeanName() {
            List<RetryAttemptContext> observed = new CopyOnWriteArrayList<>();
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<>() {

                @Override
                public void onStop(Observation.Context context) {
                    observed.add((RetryAttemptContext) context);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context instanceof RetryAttemptContext;
                }
            });
            provider.script(unavailable(), completion());
            runner.withConfiguration(AutoConfigurations.of(InferenceRetryOperationsAutoConfiguration.class))
                .withBean(ObservationRegistry.class, () -> registry)
                .withPropertyValues("inference.retry.observations.enabled=true")
                .run((context) -> {
                    context.getBean(OpenAiChatModel.class).call("Hi");

                    assertThat(observed).hasSize(2)
                        .allSatisfy((attempt) -> assertThat(attempt.getClient()).isEqualTo(BEAN));
                });
        }

        @Test
        void aShutdownThatEndsABackoffWaitAtOnce() throws Exception {
            provider.always(aResponse().withStatus(429).withHeader("Retry-After", "3600")
                .withBody(OpenAiWire.error("rate_limit_exceeded", "Slow down")));
            AtomicReference<CompletableFuture<String>> call = new AtomicReference<>();
            runner.withConfiguration(AutoConfigurations.of(InferenceRetryOperationsAutoConfiguration.class))
                .withPropertyValues("inference.retry.max-delay=5m")
                .run((context) -> {
                    OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    call.set(CompletableFuture.supplyAsync(() -> model.call("Hi")));
                    awaitUntil(() -> count(meters, "inference.retry.attempts", "invoke", "retryable_failure") == 1);
                });
            // The context is closed: its shutdown signal has ended the five-minute wait.
            assertThatThrownBy(() -> call.get().get(2, TimeUnit.SECONDS)).hasRootCauseInstanceOf(
                    ShutdownException.class);
            assertThat(requests()).isEqualTo(1);
        }
    }

    @Nested
    class FailsStartup {

        @Test
        void whenTheBeanHasNoCompletePolicyNamingItAsAChatModel() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class,
                        ToolCallingAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
                        SpringAiModelRetriersAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
                .withPropertyValues("spring.ai.openai.api-key=test", "spring.ai.openai.chat.max-retries=0")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidRetryPropertyException.class)
                    .hasMessageStartingWith("ChatModel bean 'openAiChatModel': inference.retry.stable-retries is not "
                            + "set"));
        }

        @Test
        void whenAnEntryNamesNoBeanListingTheChatModels() {
            runner.withPropertyValues("inference.retry.clients.opneAiChatModel.max-attempts=3")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("inference.retry.clients.opneAiChatModel names no InferenceClient or "
                            + "ChatModel or EmbeddingModel bean: must be the name of an InferenceClient or ChatModel or "
                            + "EmbeddingModel bean (one of [openAiChatModel])"));
        }
    }

    @Nested
    class LeavesTheBeanAlone {

        @Test
        void whenItsEntrySwitchesItOffKeepingTheClientsOwnRetries() {
            runner.withPropertyValues("inference.retry.clients.openAiChatModel.enabled=false",
                    "spring.ai.openai.chat.max-retries=2").run((context) -> {
                        assertThat(context).hasNotFailed();
                        OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                        assertThat(OpenAiChatModelRebuild.isRetried(model, BEAN)).isFalse();
                        assertThat(OpenAiChatModelRebuild.clientRetries(model, BEAN)).isEqualTo(2);
                        assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).isEmpty();
                    });
        }

        @Test
        void whenSpringAiRetryIsOffAcceptingItsEntry() {
            runner.withPropertyValues("inference.retry.spring-ai.enabled=false",
                    "inference.retry.clients.openAiChatModel.max-attempts=3").run((context) -> {
                        assertThat(context).hasNotFailed();
                        OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

                        assertThat(OpenAiChatModelRebuild.isRetried(model, BEAN)).isFalse();
                        assertThat(OpenAiChatModelRebuild.clientRetries(model, BEAN)).isEqualTo(3);
                        assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).isEmpty();
                        assertThat(context.getBean(MeterRegistry.class).find("inference.retry.attempts")
                            .tag("client", BEAN).meters()).isEmpty();
                    });
        }

        @Test
        void withoutSpringAiOnTheClassPathNothingOfItIsLoaded() {
            new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.ai"))
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                        SpringAiModelRetriersAutoConfiguration.class, SpringAiRetryAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RetriedBeanType.class)
                        .doesNotHaveBean(ModelRetriers.class)
                        .doesNotHaveBean("inferenceRetrySpringAiTimer");
                });
        }
    }

    private static void awaitUntil(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("still waiting for the condition").isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }
    }

    private static double count(MeterRegistry registry, String name, String operation, String outcome) {
        return MeterCounts.count(registry.find(name).tags("client", BEAN, "operation", operation, "outcome", outcome));
    }

    private static int requests() {
        return provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    private static ResponseDefinitionBuilder unavailable() {
        return aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Try later"));
    }

    private static ResponseDefinitionBuilder completion() {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.completion("Hello"));
    }
}
