package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.inference.client.CallContext;
import dev.inference.retry.autoconfigure.RetrierCustomizer;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;

/**
 * The runtime refresh (SPEC §13) of a Spring AI model that the starter retries beneath its bean: an
 * application with the real OpenAI starter and Spring Cloud Context, whose {@code inference.retry.*}
 * changes through an {@code EnvironmentChangeEvent}, as {@code /actuator/env} publishes it. The
 * provider always answers 503; waits are virtual, and a change "during a wait" is made by the sleeper.
 */
class OpenAiChatModelRefreshTests {

    private final WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    @BeforeEach
    void startProvider() {
        this.provider.start();
        this.provider.stubFor(post(urlEqualTo(OpenAiWire.PATH)).willReturn(aResponse().withStatus(503)));
    }

    @AfterEach
    void stopProvider() {
        this.provider.stop();
    }

    @Test
    void aRaisedMaxAttemptsAppliesToTheNextCall() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(requests()).isEqualTo(2);

            refresh(context, "inference.retry.max-attempts", "4");

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(requests()).isEqualTo(2 + 4);
        }
    }

    @Test
    void aChangeDuringABackoffWaitAppliesToThatCallsNextDecision() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
            context.getBean(OnWait.class).once(() -> refresh(context, "inference.retry.max-attempts", "4"));

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();

            assertThat(requests()).isEqualTo(4);
        }
    }

    @Test
    void aModelSwitchedOffMakesOneRequestPerCall() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

            refresh(context, "inference.retry.clients.openAiChatModel.enabled", "false");

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(requests()).isEqualTo(1);
        }
    }

    private static void refresh(ConfigurableApplicationContext context, String key, String value) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshTest", Map.of(key, value)));
        context.publishEvent(new EnvironmentChangeEvent(context, Set.of(key)));
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
            .properties("inference.retry.stable-retries=0", "inference.retry.stable-delay=50ms",
                    "inference.retry.max-attempts=2", "inference.retry.max-delay=50ms",
                    "spring.ai.openai.base-url=http://127.0.0.1:" + this.provider.port() + "/v1",
                    "spring.ai.openai.api-key=test", "spring.ai.model.embedding=none", "spring.ai.model.image=none",
                    "spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
                    "spring.ai.model.moderation=none", "spring.ai.model.chat=openai", "spring.main.banner-mode=off")
            .run();
    }

    private int requests() {
        return this.provider.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        OnWait onWait() {
            return new OnWait();
        }

        @Bean
        RetrierCustomizer onWaitSleeper(OnWait onWait) {
            return (beanName, builder) -> builder.sleeper(onWait);
        }
    }

    /** Waits nothing, and runs an action (once) at the next wait. */
    static final class OnWait implements Sleeper {

        private final AtomicReference<@Nullable Runnable> next = new AtomicReference<>();

        void once(Runnable action) {
            this.next.set(action);
        }

        @Override
        public void sleep(Duration delay, CallContext context) {
            Runnable action = this.next.getAndSet(null);
            if (action != null) {
                action.run();
            }
        }
    }
}
