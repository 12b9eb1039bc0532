package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.RecordingRetryEvents;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application with the real OpenAI starter, this module and every auto-configuration they bring,
 * configured by {@code inference.retry.*} alone, whose code injects {@code OpenAiChatModel} by its class.
 */
class OpenAiChatModelApplicationTests {

    private final WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    private final RecordingRetryEvents events = new RecordingRetryEvents();

    @BeforeEach
    void startProvider() {
        this.provider.start();
        this.provider.stubFor(post(urlEqualTo(OpenAiWire.PATH)).inScenario("flaky")
            .whenScenarioStateIs(STARTED)
            .willReturn(aResponse().withStatus(503))
            .willSetStateTo("recovered"));
        this.provider.stubFor(post(urlEqualTo(OpenAiWire.PATH)).inScenario("flaky")
            .whenScenarioStateIs("recovered")
            .willReturn(aResponse().withHeader("Content-Type", "application/json")
                .withBody(OpenAiWire.completion("Hello"))));
    }

    @AfterEach
    void stopProvider() {
        this.provider.stop();
    }

    @Test
    void startsAndRetriesTheCallsOfCodeThatInjectsTheModelByClass() {
        try (ConfigurableApplicationContext context = start()) {
            Greeter greeter = context.getBean(Greeter.class);

            assertThat(greeter.greet()).isEqualTo("Hello");
            assertThat(greeter.model).isSameAs(context.getBean("openAiChatModel"))
                .isExactlyInstanceOf(OpenAiChatModel.class);
            assertThat(OpenAiChatModelRebuild.isRetried(greeter.model, "openAiChatModel")).isTrue();
            assertThat(requests()).isEqualTo(2);
            assertThat(this.events.scheduled()).hasSize(1);
        }
    }

    @Test
    void retriesTheCallsOfAChatClientOverTheModel() {
        try (ConfigurableApplicationContext context = start()) {
            ChatClient client = context.getBean(ChatClient.Builder.class).build();

            assertThat(client.prompt("Hi").call().content()).isEqualTo("Hello");
            assertThat(requests()).isEqualTo(2);
        }
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void failsToStartWhenTheChatModelsClientWouldRetryWithAReportNamingThePropertyAndTheFix(CapturedOutput output) {
        assertThatThrownBy(() -> start("spring.ai.openai.chat.max-retries=2"))
            .hasRootCauseInstanceOf(ModelClientRetriesException.class);

        assertThat(output).contains("""
                Invalid retry configuration for ChatModel bean 'openAiChatModel':

                    Property: spring.ai.openai.chat.max-retries
                    Value: 2
                    Origin: "spring.ai.openai.chat.max-retries" from property source "commandLineArgs"
                    Reason: must be 0 for a chat model that inference-retry retries: its client would retry each \
                exchange 2 more time(s) itself, so each attempt would make up to 3 requests

                Action:

                Set spring.ai.openai.chat.max-retries=0, or remove it: the starter sets it to 0 when it is unset.""");
    }

    @Test
    void startsWithTheClientsOwnRetriesWhenTheChatModelIsNotRetried() {
        try (ConfigurableApplicationContext context = start("spring.ai.openai.chat.max-retries=2",
                "inference.retry.clients.openAiChatModel.enabled=false")) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

            assertThat(OpenAiChatModelRebuild.isRetried(model, "openAiChatModel")).isFalse();
            assertThat(OpenAiChatModelRebuild.clientRetries(model, "openAiChatModel")).isEqualTo(2);
        }
    }

    private ConfigurableApplicationContext start(String... arguments) {
        return OpenAiApplication.builder(Application.class, this.provider.port())
            .initializers((context) -> context.getBeanFactory().registerSingleton("events", this.events))
            .run(Arrays.stream(arguments).map((argument) -> "--" + argument).toArray(String[]::new));
    }

    private int requests() {
        return this.provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Greeter greeter(OpenAiChatModel model) {
            return new Greeter(model);
        }
    }

    /** Application code that needs the OpenAI model itself, not just a ChatModel. */
    static class Greeter {

        final OpenAiChatModel model;

        Greeter(OpenAiChatModel model) {
            this.model = model;
        }

        String greet() {
            return this.model.call("Hi");
        }
    }
}
