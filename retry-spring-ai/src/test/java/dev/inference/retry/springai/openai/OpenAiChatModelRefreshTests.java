package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.retry.autoconfigure.RetrierCustomizer;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
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

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    @BeforeEach
    void answerEveryRequest503() {
        provider.resetAll();
        provider.always(aResponse().withStatus(503));
    }

    @Test
    void aRaisedMaxAttemptsAppliesToTheNextCall() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(provider.requests()).isEqualTo(2);

            refresh(context, "inference.retry.max-attempts", "4");

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(provider.requests()).isEqualTo(2 + 4);
        }
    }

    @Test
    void aChangeDuringABackoffWaitAppliesToThatCallsNextDecision() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
            context.getBean(OnWait.class).once(() -> refresh(context, "inference.retry.max-attempts", "4"));

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();

            assertThat(provider.requests()).isEqualTo(4);
        }
    }

    @Test
    void aModelSwitchedOffMakesOneRequestPerCall() {
        try (ConfigurableApplicationContext context = start()) {
            OpenAiChatModel model = context.getBean(OpenAiChatModel.class);

            refresh(context, "inference.retry.clients.openAiChatModel.enabled", "false");

            assertThat(catchThrowable(() -> model.call("Hi"))).isNotNull();
            assertThat(provider.requests()).isEqualTo(1);
        }
    }

    private static void refresh(ConfigurableApplicationContext context, String key, String value) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshTest", Map.of(key, value)));
        context.publishEvent(new EnvironmentChangeEvent(context, Set.of(key)));
    }

    private static ConfigurableApplicationContext start() {
        return OpenAiApplication.builder(Application.class, provider.port())
            .properties("inference.retry.max-attempts=2")
            .run();
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
