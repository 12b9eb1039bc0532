package dev.inference.retry.springai.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.ApiClient;
import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint;
import dev.inference.retry.autoconfigure.InferenceRetryEndpointAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.GoogleWire;
import dev.inference.retry.springai.MeterCounts;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.SpringAiStarters;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import okhttp3.Interceptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * What the auto-configuration does with the Google GenAI chat model bean: when it rebuilds the model on a
 * client of its own, what the rebuilt model and its client keep, what it leaves alone, when it refuses,
 * and that the bean is counted and listed under its name.
 */
class GoogleGenAiChatModelRebuildTests {

    private static final String BEAN = "googleGenAiChatModel";

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(20), 3, Duration.ofMillis(20)))
        .name(BEAN)
        .build();

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(GoogleWire.GENERATE);

    private final ApplicationContextRunner runner = SpringAiStarters.googleGenAi("http://127.0.0.1:" + provider.port());

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
    }

    @Nested
    class Rebuilds {

        @Test
        void theModelAsAnInstanceOfItsClassKeepingItsOptions() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER)).run((context) -> {
                GoogleGenAiChatModel model = context.getBean(GoogleGenAiChatModel.class);

                assertThat(model).isExactlyInstanceOf(RetriedGoogleGenAiChatModel.class);
                assertThat(model.getOptions().getModel()).isEqualTo(GoogleWire.MODEL);
            });
        }

        @Test
        void onAClientOfItsOwnWithTheSettingsOfTheModelsAndTheRetriesOfTheStarter() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER)).run((context) -> {
                Client shared = context.getBean(Client.class);
                Client own = clientOf(context.getBean(GoogleGenAiChatModel.class));

                assertThat(own).isNotSameAs(shared);
                assertThat(own.apiKey()).isEqualTo(shared.apiKey());
                assertThat(own.vertexAI()).isEqualTo(shared.vertexAI());
                HttpOptions ownOptions = apiClientOf(own).httpOptions();
                HttpOptions sharedOptions = apiClientOf(shared).httpOptions();
                assertThat(ownOptions.baseUrl()).isEqualTo(sharedOptions.baseUrl());
                assertThat(ownOptions.apiVersion()).isEqualTo(sharedOptions.apiVersion());
                // The SDK's own headers are its own once: the new client adds them again.
                assertThat(ownOptions.headers()).isEqualTo(sharedOptions.headers());
                assertThat(interceptorsOf(own)).extracting((interceptor) -> interceptor.getClass().getSimpleName())
                    .containsExactly("RetryingGoogleGenAiInterceptor", "RetryInterceptor");
            });
        }

        @Test
        void aModelOnAClientTheApplicationBuiltToMakeOneAttempt() {
            new ApplicationContextRunner().withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(BEAN, GoogleGenAiChatModel.class, () -> modelOn(HttpRetryOptions.builder().attempts(1).build()))
                .run((context) -> assertThat(context.getBean(BEAN)).isInstanceOf(RetriedGoogleGenAiChatModel.class));
        }
    }

    @Nested
    class LeavesAlone {

        @Test
        void theClientBeanOthersMayShareWithTheSdksRetries() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER)).run((context) -> {
                Client shared = context.getBean(Client.class);

                assertThat(interceptorsOf(shared)).extracting((interceptor) -> interceptor.getClass().getSimpleName())
                    .containsExactly("RetryInterceptor");
            });
        }

        @Test
        void aModelWhoseBeanHasNoRetrierWithoutRefusingIt() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.empty()).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BEAN)).isExactlyInstanceOf(GoogleGenAiChatModel.class);
            });
        }
    }

    @Nested
    class Refuses {

        @Test
        void aModelOnAClientWhoseRetryOptionsAskForRetriesNamingTheFix() {
            new ApplicationContextRunner().withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(BEAN, GoogleGenAiChatModel.class, () -> modelOn(HttpRetryOptions.builder().attempts(3).build()))
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ModelNotRetriableException.class)
                    .hasMessageContaining("'" + BEAN + "'")
                    .hasMessageContaining("HttpOptions.retryOptions ask for 3 attempts per exchange")
                    .hasMessageContaining("HttpRetryOptions.builder().attempts(1)")
                    .hasMessageContaining("inference.retry.clients." + BEAN + ".enabled=false"));
        }
    }

    @Nested
    class ReportsTheBeanUnderItsName {

        @Test
        void countingItsAttemptsAndListingItInTheEndpoint() {
            provider.script(GoogleWire.error(503, "UNAVAILABLE", "Overloaded"), GoogleWire.completion("Hello"));
            runner
                .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
                        InferenceRetryMetricsAutoConfiguration.class, InferenceRetryEndpointAutoConfiguration.class,
                        SpringAiModelRetriersAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry",
                        "inference.retry.stable-retries=0", "inference.retry.stable-delay=20ms",
                        "inference.retry.max-attempts=3", "inference.retry.max-delay=20ms")
                .run((context) -> {
                    assertThat(context.getBean(GoogleGenAiChatModel.class).call("Hi")).isEqualTo("Hello");

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(attempts(registry, "retryable_failure")).isEqualTo(1);
                    assertThat(attempts(registry, "success")).isEqualTo(1);
                    assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).containsOnlyKeys(BEAN);
                });
        }

        private static double attempts(MeterRegistry registry, String outcome) {
            return MeterCounts.count(registry.find("inference.retry.attempts")
                .tags("client", BEAN, "operation", "invoke", "outcome", outcome));
        }
    }

    private static GoogleGenAiChatModel modelOn(HttpRetryOptions retryOptions) {
        Client client = Client.builder()
            .apiKey("test")
            .vertexAI(false)
            .httpOptions(HttpOptions.builder().baseUrl("http://127.0.0.1:9").retryOptions(retryOptions).build())
            .build();
        return GoogleGenAiChatModel.builder()
            .genAiClient(client)
            .options(GoogleGenAiChatOptions.builder().model(GoogleWire.MODEL).build())
            .build();
    }

    private static Client clientOf(GoogleGenAiChatModel model) {
        return (Client) ReflectionTestUtils.getField(model, "genAiClient");
    }

    private static ApiClient apiClientOf(Client client) {
        return (ApiClient) ReflectionTestUtils.getField(client, "apiClient");
    }

    private static List<Interceptor> interceptorsOf(Client client) {
        return apiClientOf(client).httpClient().interceptors();
    }
}
