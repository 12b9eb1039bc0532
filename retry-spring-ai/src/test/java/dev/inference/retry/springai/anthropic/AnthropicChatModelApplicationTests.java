package dev.inference.retry.springai.anthropic;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inference.retry.springai.AnthropicWire;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.RecordingRetryEvents;
import dev.inference.retry.springai.ScriptedProvider;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application with the real Anthropic starter, this module and every auto-configuration they bring,
 * configured by {@code inference.retry.*} alone (the starter turns the model's own retries off), whose
 * code injects {@code AnthropicChatModel} by its class.
 */
class AnthropicChatModelApplicationTests {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(AnthropicWire.PATH);

    private final RecordingRetryEvents events = new RecordingRetryEvents();

    @BeforeEach
    void scriptAFlakyProvider() {
        provider.resetAll();
        provider.script(aResponse().withStatus(529).withBody(AnthropicWire.error("overloaded_error", "Overloaded")),
                aResponse().withHeader("Content-Type", "application/json").withBody(AnthropicWire.message("Hello")));
    }

    @Test
    void startsAndRetriesTheCallsOfCodeThatInjectsTheModelByClass() {
        try (ConfigurableApplicationContext context = start()) {
            Assistant assistant = context.getBean(Assistant.class);

            assertThat(assistant.model.call("Hi")).isEqualTo("Hello");
            assertThat(assistant.model).isSameAs(context.getBean("anthropicChatModel"))
                .isExactlyInstanceOf(AnthropicChatModel.class);
            assertThat(AnthropicChatModelRebuild.isRetried(assistant.model, "anthropicChatModel")).isTrue();
            assertThat(provider.requests()).isEqualTo(2);
            assertThat(this.events.scheduled()).hasSize(1);
        }
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void failsToStartWhenTheModelsClientWouldRetryWithAReportNamingThePropertyAndTheFix(CapturedOutput output) {
        assertThatThrownBy(() -> start("spring.ai.anthropic.max-retries=1"))
            .hasRootCauseInstanceOf(ModelClientRetriesException.class);

        assertThat(output).contains("Invalid retry configuration for ChatModel bean 'anthropicChatModel'",
                "Property: spring.ai.anthropic.max-retries", "Value: 1",
                "Set spring.ai.anthropic.max-retries=0, or remove it: the starter sets it to 0 when it is unset.");
    }

    private ConfigurableApplicationContext start(String... arguments) {
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
            .initializers((context) -> context.getBeanFactory().registerSingleton("events", this.events))
            .properties("inference.retry.stable-retries=0", "inference.retry.stable-delay=50ms",
                    "inference.retry.max-attempts=3", "inference.retry.max-delay=50ms",
                    "spring.ai.anthropic.base-url=http://127.0.0.1:" + provider.port(),
                    "spring.ai.anthropic.api-key=test", "spring.ai.model.chat=anthropic",
                    "spring.ai.model.embedding=none", "spring.ai.model.image=none", "spring.ai.model.audio.speech=none",
                    "spring.ai.model.audio.transcription=none", "spring.ai.model.moderation=none",
                    "spring.main.banner-mode=off")
            .run(Arrays.stream(arguments).map((argument) -> "--" + argument).toArray(String[]::new));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Assistant assistant(AnthropicChatModel model) {
            return new Assistant(model);
        }
    }

    /** Application code that needs the Anthropic model itself, not just a ChatModel. */
    record Assistant(AnthropicChatModel model) {
    }
}
