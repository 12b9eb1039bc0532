package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint;
import dev.inference.retry.autoconfigure.InferenceRetryEndpointAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application's own chat model in an application configured by {@code inference.retry.*} alone, with
 * the starter's auto-configurations, the meters and the endpoint: the model gets the policy of its bean
 * name and is counted and listed under that name, as an {@code InferenceClient} bean would be.
 */
class ApplicationChatModelStarterTests {

    private static final String BEAN = "appChatModel";

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                InferenceRetryAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class,
                InferenceRetryEndpointAutoConfiguration.class, SpringAiModelRetriersAutoConfiguration.class,
                SpringAiRetryAutoConfiguration.class))
        .withBean(BEAN, RestClientChatModel.class, () -> new RestClientChatModel("http://127.0.0.1:" + provider.port()))
        .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry", "inference.retry.stable-retries=0",
                "inference.retry.stable-delay=10ms", "inference.retry.max-attempts=5", "inference.retry.max-delay=10ms");

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
    }

    @Test
    void getsThePolicyOfItsBeanName() {
        provider.always(unavailable());
        runner.withPropertyValues("inference.retry.clients.appChatModel.max-attempts=3").run((context) -> {
            assertThatThrownBy(() -> context.getBean(RestClientChatModel.class).call(new Prompt("Hi")))
                .isInstanceOfSatisfying(ExhaustedException.class, (ex) -> assertThat(ex.attempts()).isEqualTo(3));
            assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount())
                .isEqualTo(3);
        });
    }

    @Test
    void countsTheAttemptsOfACallUnderItsBeanNameWithTheStatusAsTheError() {
        provider.script(unavailable(), aResponse().withHeader("Content-Type", "application/json")
            .withBody(OpenAiWire.completion("Hello")));
        runner.run((context) -> {
            context.getBean(RestClientChatModel.class).call(new Prompt("Hi"));

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(attempts(meters, "invoke", "retryable_failure", "http_503")).isEqualTo(1);
            assertThat(attempts(meters, "invoke", "success", "none")).isEqualTo(1);
        });
    }

    @Test
    void countsTheAttemptsOfAStreamAsStreamAttempts() {
        provider.script(unavailable(), aResponse().withHeader("Content-Type", "text/event-stream")
            .withBody(OpenAiWire.stream(List.of("Hel", "lo"))));
        runner.run((context) -> {
            context.getBean(RestClientChatModel.class).stream(new Prompt("Hi")).blockLast(Duration.ofSeconds(10));

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(attempts(meters, "stream", "retryable_failure", "http_503")).isEqualTo(1);
            assertThat(attempts(meters, "stream", "success", "none")).isEqualTo(1);
        });
    }

    @Test
    void isListedByTheEndpointWithItsPolicy() {
        runner.withPropertyValues("inference.retry.clients.appChatModel.max-attempts=3").run((context) -> {
            InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);

            assertThat(endpoint.clients().clients()).containsOnlyKeys(BEAN);
            assertThat(endpoint.client(BEAN).policy().maxAttempts()).isEqualTo(3);
        });
    }

    @Test
    void isLeftAsItIsWhenItsEntrySwitchesItOff() {
        runner.withPropertyValues("inference.retry.clients.appChatModel.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(BEAN)).isExactlyInstanceOf(RestClientChatModel.class);
        });
    }

    private static double attempts(MeterRegistry meters, String operation, String outcome, String error) {
        return MeterCounts.count(meters.find("inference.retry.attempts")
            .tags("client", BEAN, "operation", operation, "outcome", outcome, "error", error));
    }

    private static ResponseDefinitionBuilder unavailable() {
        return aResponse().withStatus(503).withBody(OpenAiWire.error("server_error", "Try later"));
    }
}
