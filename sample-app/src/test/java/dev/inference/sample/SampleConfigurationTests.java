package dev.inference.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.Authorizer;
import dev.inference.client.InferenceClient;
import dev.inference.sample.openai.OpenAiCompatibleClient;
import dev.inference.sample.provider.FlakyProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Tests for {@link SampleConfiguration}.
 */
class SampleConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(SampleConfiguration.class);

    @Nested
    class Endpoint {

        @Test
        void startsTheEmbeddedProviderAndPointsTheClientAtIt() {
            runner.run((context) -> {
                FlakyProvider provider = context.getBean(FlakyProvider.class);
                assertThat(context.getBean("openai", InferenceClient.class))
                        .isInstanceOfSatisfying(OpenAiCompatibleClient.class, (client) -> assertThat(client.endpoint())
                                .isEqualTo(provider.baseUrl().resolve("/v1/chat/completions")));
            });
        }

        @Test
        void callsTheBaseUrlInsteadOfStartingTheProvider() {
            runner.withPropertyValues("sample.inference.base-url=https://llm.example.test/").run((context) -> {
                assertThat(context).doesNotHaveBean(FlakyProvider.class);
                assertThat(context.getBean("openai", OpenAiCompatibleClient.class).endpoint())
                        .hasToString("https://llm.example.test/v1/chat/completions");
            });
        }

        @Test
        void failsWithoutABaseUrlWhenTheProviderIsDisabled() {
            runner.withPropertyValues("sample.provider.enabled=false").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class)
                        .hasMessage("No inference provider: set sample.inference.base-url to an OpenAI-compatible "
                                + "endpoint, or leave sample.provider.enabled true to use the embedded one");
            });
        }

        @Test
        void startsTheEmbeddedProviderOnTheConfiguredPort() throws IOException {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            runner.withPropertyValues("sample.provider.port=" + port).run((context) ->
                    assertThat(context.getBean(FlakyProvider.class).baseUrl()).hasToString("http://127.0.0.1:" + port));
        }

        @Test
        void failsOnAProviderPortThatIsNoPort() {
            runner.withPropertyValues("sample.provider.port=-1").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class)
                        .hasMessage("Invalid sample.provider.port: -1 is not a port; set one from 1 to 65535, "
                                + "or 0 for any free port");
            });
        }

        @Test
        void startsTheProviderRateLimitedWhenAskedTo() {
            runner.withPropertyValues("sample.provider.rate-limit.requests=20", "sample.provider.rate-limit.window=2s")
                    .run((context) -> assertThat(context.getBean(FlakyProvider.class).toString())
                            .endsWith(", rateLimit=20 requests per PT2S]"));
        }

        @Test
        void failsOnARateLimitThatAdmitsNothing() {
            runner.withPropertyValues("sample.provider.rate-limit.requests=0").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "Invalid sample.provider.rate-limit: requests must be at least 1, was 0");
            });
        }

        @Test
        void failsOnFaultFractionsAddingUpToMoreThanOne() {
            runner.withPropertyValues("sample.provider.faults.rate-limited=0.6", "sample.provider.faults.unavailable=0.6")
                    .run((context) -> {
                        assertThat(context).hasFailed();
                        assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith(
                                "The fault fractions must add up to at most 1, but rate-limited 0.6 + unavailable 0.6");
                        assertThat(context.getStartupFailure()).hasStackTraceContaining(
                                "Invalid sample.provider.faults: The fault fractions must add up to at most 1");
                    });
        }
    }

    @Nested
    class Credentials {

        @Test
        void sendsTheApiKeyAsABearerToken() {
            runner.withPropertyValues("sample.inference.api-key=sk-test").run((context) -> {
                Authorizer authorizer = context.getBean(Authorizer.class);
                assertThat(authorizer.authorize()).isEqualTo(Map.of("Authorization", "Bearer sk-test"));
                assertThat(authorizer).hasToString("BearerTokenAuthorizer[key hidden]");
            });
        }

        @Test
        void sendsNoCredentialsWithoutAnApiKey() {
            runner.withPropertyValues("sample.inference.api-key=").run((context) ->
                    assertThat(context.getBean(Authorizer.class).authorize()).isEmpty());
        }
    }
}
