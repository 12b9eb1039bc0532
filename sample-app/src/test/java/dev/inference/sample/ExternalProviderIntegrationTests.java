package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.FaultMix;
import dev.inference.sample.provider.FlakyProvider;
import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The sample pointed at a provider of its own choosing by {@code sample.inference.base-url}, with
 * the API key taken from {@code OPENAI_API_KEY}: the embedded provider is not started, and every
 * attempt carries the key as a bearer token, from the sample's own client and from Spring AI's chat
 * model alike.
 */
@SampleAppTest
@TestPropertySource(properties = "OPENAI_API_KEY=sk-from-the-environment")
@Import(VirtualTime.class)
class ExternalProviderIntegrationTests {

    /** Stands in for a provider elsewhere; the app under test knows it only by its URL. */
    private static final FlakyProvider external = FlakyProvider.start(FaultMix.none(), 1, Duration.ofMillis(1));

    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @DynamicPropertySource
    static void baseUrl(DynamicPropertyRegistry registry) {
        registry.add("sample.inference.base-url", () -> external.baseUrl().toString());
    }

    @BeforeEach
    void resetExternal() {
        external.reset();
    }

    @AfterAll
    static void stopExternal() {
        external.close();
    }

    @Test
    void sendsTheApiKeyAsABearerTokenOnEveryAttempt() throws Exception {
        external.script(Outcome.RATE_LIMITED, Outcome.SUCCESS);

        HttpResponse<String> response = new SampleHttp(this.port).get("/chat?prompt=hi");

        assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "attempts", 2));
        assertThat(external.requests()).extracting((request) -> request.header("Authorization").orElseThrow())
                .containsExactly("Bearer sk-from-the-environment", "Bearer sk-from-the-environment");
        assertThat(context.getBeanNamesForType(FlakyProvider.class)).isEmpty();
    }

    @Test
    void pointsSpringAisChatModelAtTheSameProviderWithTheSameKey() throws Exception {
        external.script(Outcome.UNAVAILABLE, Outcome.SUCCESS);

        HttpResponse<String> response = new SampleHttp(this.port).get("/ai/chat?prompt=hi");

        assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "gpt-4o-mini"));
        assertThat(external.requests()).extracting((request) -> request.path() + " "
                + request.header("Authorization").orElseThrow())
                .containsExactly("/v1/chat/completions Bearer sk-from-the-environment",
                        "/v1/chat/completions Bearer sk-from-the-environment");
    }
}
