package dev.inference.retry.springai.ollama;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.autoconfigure.InferenceRetryEndpoint;

import dev.inference.retry.springai.MeterCounts;
import dev.inference.retry.springai.OllamaWire;
import dev.inference.retry.springai.RecordingRetryEvents;
import dev.inference.retry.springai.ScriptedProvider;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application with the real Ollama starter, this module and every auto-configuration on the class
 * path, configured by {@code inference.retry.*} alone, whose code injects {@code OllamaChatModel} by its
 * class; and its embedding model, retried, counted and listed under its bean name too.
 */
class OllamaChatModelApplicationTests {

    private static final String EMBEDDING_BEAN = "ollamaEmbeddingModel";

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OllamaWire.CHAT);

    private final RecordingRetryEvents events = new RecordingRetryEvents();

    @BeforeEach
    void resetProvider() {
        provider.resetAll();
    }

    @Test
    void startsAndRetriesTheCallsOfCodeThatInjectsTheModelByClass() {
        provider.script(OllamaWire.error(503, "server busy"), OllamaWire.chat("Hello"));
        try (ConfigurableApplicationContext context = start()) {
            Greeter greeter = context.getBean(Greeter.class);

            assertThat(greeter.greet()).isEqualTo("Hello");
            assertThat(greeter.model).isSameAs(context.getBean("ollamaChatModel"))
                .isInstanceOf(OllamaChatModel.class);
            assertThat(OllamaChatModelRebuild.isRetried(greeter.model)).isTrue();
            assertThat(provider.requests()).isEqualTo(2);
            assertThat(this.events.scheduled()).hasSize(1);
            assertThat(attempts(context, "invoke", "retryable_failure")).isEqualTo(1);
            assertThat(attempts(context, "invoke", "success")).isEqualTo(1);
        }
    }

    @Test
    void retriesTheStreamsOfAChatClientOverTheModel() {
        provider.script(OllamaWire.error(503, "server busy"), OllamaWire.stream("Hel", "lo"));
        try (ConfigurableApplicationContext context = start()) {
            ChatClient client = context.getBean(ChatClient.Builder.class).build();

            List<String> chunks = client.prompt("Hi").stream().content().collectList().block(Duration.ofSeconds(10));

            assertThat(chunks).filteredOn((chunk) -> !chunk.isEmpty()).containsExactly("Hel", "lo");
            assertThat(provider.requests()).isEqualTo(2);
            assertThat(attempts(context, "stream", "retryable_failure")).isEqualTo(1);
            assertThat(attempts(context, "stream", "success")).isEqualTo(1);
        }
    }

    @Test
    void retriesTheEmbeddingModelCountingItUnderItsNameAndListingItInTheEndpoint() {
        provider.stubFor(post(urlEqualTo(OllamaWire.EMBED)).inScenario("embed")
            .whenScenarioStateIs(STARTED)
            .willReturn(OllamaWire.error(429, "slow down").withHeader("Retry-After", "1"))
            .willSetStateTo("answered"));
        provider.stubFor(post(urlEqualTo(OllamaWire.EMBED)).inScenario("embed")
            .whenScenarioStateIs("answered")
            .willReturn(OllamaWire.embeddings()));
        try (ConfigurableApplicationContext context = start("spring.ai.model.embedding=ollama",
                "spring.ai.ollama.embedding.model=" + OllamaWire.MODEL,
                "management.endpoints.web.exposure.include=inferenceretry")) {
            float[] embedding = context.getBean(OllamaEmbeddingModel.class).embed("Hello");

            assertThat(embedding).containsExactly(0.1f, 0.2f, 0.3f);
            assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo(OllamaWire.EMBED)).build())
                .getCount()).isEqualTo(2);
            assertThat(attempts(context, EMBEDDING_BEAN, "invoke", "retryable_failure")).isEqualTo(1);
            assertThat(attempts(context, EMBEDDING_BEAN, "invoke", "success")).isEqualTo(1);
            assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients())
                .containsOnlyKeys("ollamaChatModel", EMBEDDING_BEAN);
        }
    }

    private ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(List.of("inference.retry.stable-retries=0",
                "inference.retry.stable-delay=50ms", "inference.retry.max-attempts=3", "inference.retry.max-delay=50ms",
                "spring.ai.ollama.base-url=http://127.0.0.1:" + provider.port(),
                "spring.ai.ollama.chat.model=" + OllamaWire.MODEL, "spring.ai.model.chat=ollama",
                "spring.ai.model.embedding=none", "spring.ai.model.image=none", "spring.ai.model.audio.speech=none",
                "spring.ai.model.audio.transcription=none", "spring.ai.model.moderation=none",
                "spring.main.banner-mode=off", "spring.http.clients.imperative.factory=reactor"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
            .initializers((context) -> context.getBeanFactory().registerSingleton("events", this.events))
            .properties(all.toArray(String[]::new))
            .run();
    }

    /** The attempts of the chat model's bean counted with this operation and outcome. */
    private static double attempts(ConfigurableApplicationContext context, String operation, String outcome) {
        return attempts(context, "ollamaChatModel", operation, outcome);
    }

    /** The attempts of a bean counted with this operation and outcome. */
    private static double attempts(ConfigurableApplicationContext context, String bean, String operation,
            String outcome) {
        return MeterCounts.count(context.getBean(MeterRegistry.class)
            .find("inference.retry.attempts")
            .tags("client", bean, "operation", operation, "outcome", outcome));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Greeter greeter(OllamaChatModel model) {
            return new Greeter(model);
        }
    }

    /** Application code that needs the Ollama model itself, not just a ChatModel. */
    static class Greeter {

        final OllamaChatModel model;

        Greeter(OllamaChatModel model) {
            this.model = model;
        }

        String greet() {
            return this.model.call("Hi");
        }
    }
}
