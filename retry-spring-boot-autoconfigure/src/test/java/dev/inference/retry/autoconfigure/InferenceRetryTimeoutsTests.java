package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.RetryClient;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.TimeoutsDescriptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The three timeouts of SPEC §11 as properties: at the top level and per bean, merged field by field,
 * off unless set, applied to each bean's retrier, shown by the endpoint and counted by the meters.
 * Their validation is in {@link HostileConfigurationTests}.
 */
class InferenceRetryTimeoutsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
        .withUserConfiguration(TestClients.TwoClients.class)
        .withPropertyValues(TestClients.POLICY);

    private static Timeouts timeoutsOf(ConfigurableApplicationContext context, String bean) {
        return context.getBean(bean, RetryClient.class).retrier().timeouts();
    }

    @Nested
    class Properties {

        @ParameterizedTest
        @ValueSource(strings = { "attempt-timeout", "first-token-timeout", "stream-idle-timeout" })
        void applyAtTheTopLevelToEveryBean(String property) {
            InferenceRetryTimeoutsTests.this.runner.withPropertyValues("inference.retry." + property + "=7s")
                .run((context) -> {
                    assertThat(timeoutsOf(context, "openai")).isEqualTo(only(property, Duration.ofSeconds(7)));
                    assertThat(timeoutsOf(context, "local")).isEqualTo(only(property, Duration.ofSeconds(7)));
                });
        }

        @ParameterizedTest
        @ValueSource(strings = { "attempt-timeout", "first-token-timeout", "stream-idle-timeout" })
        void applyPerBeanToThatBeanOnly(String property) {
            InferenceRetryTimeoutsTests.this.runner
                .withPropertyValues("inference.retry.clients.local." + property + "=3s")
                .run((context) -> {
                    assertThat(timeoutsOf(context, "local")).isEqualTo(only(property, Duration.ofSeconds(3)));
                    assertThat(timeoutsOf(context, "openai")).isEqualTo(Timeouts.none());
                });
        }

        @ParameterizedTest
        @ValueSource(strings = { "attempt-timeout", "first-token-timeout", "stream-idle-timeout" })
        void takePerBeanValuesOverTheTopLevel(String property) {
            InferenceRetryTimeoutsTests.this.runner
                .withPropertyValues("inference.retry." + property + "=7s",
                        "inference.retry.clients.local." + property + "=3s")
                .run((context) -> {
                    assertThat(timeoutsOf(context, "local")).isEqualTo(only(property, Duration.ofSeconds(3)));
                    assertThat(timeoutsOf(context, "openai")).isEqualTo(only(property, Duration.ofSeconds(7)));
                });
        }

        @Test
        void mergeFieldByField() {
            InferenceRetryTimeoutsTests.this.runner
                .withPropertyValues("inference.retry.attempt-timeout=20s", "inference.retry.first-token-timeout=10s",
                        "inference.retry.clients.local.first-token-timeout=2m",
                        "inference.retry.clients.local.stream-idle-timeout=5s")
                .run((context) -> assertThat(timeoutsOf(context, "local")).isEqualTo(Timeouts.none()
                    .withAttempt(Duration.ofSeconds(20))
                    .withFirstToken(Duration.ofMinutes(2))
                    .withStreamIdle(Duration.ofSeconds(5))));
        }

        @Test
        void areOffUnlessSet() {
            InferenceRetryTimeoutsTests.this.runner.run((context) -> {
                assertThat(timeoutsOf(context, "openai")).isEqualTo(Timeouts.none());
                assertThat(context.getBean(RetryTimer.class).isStarted()).isFalse();
            });
        }

        private static Timeouts only(String property, Duration value) {
            return switch (property) {
                case "attempt-timeout" -> Timeouts.none().withAttempt(value);
                case "first-token-timeout" -> Timeouts.none().withFirstToken(value);
                default -> Timeouts.none().withStreamIdle(value);
            };
        }
    }

    @Nested
    class Timer {

        @Test
        void isSharedByEveryRetriedBean() {
            InferenceRetryTimeoutsTests.this.runner.withPropertyValues("inference.retry.attempt-timeout=7s")
                .run((context) -> {
                    RetryTimer timer = context.getBean(RetryTimer.class);
                    assertThat(context.getBean("openai", RetryClient.class).retrier().timer()).isSameAs(timer);
                    assertThat(context.getBean("local", RetryClient.class).retrier().timer()).isSameAs(timer);
                });
        }

        @Test
        void startsItsThreadOnlyWhenAnAttemptIsTimedAndStopsItWithTheContext() {
            InferenceRetryTimeoutsTests.this.runner.withPropertyValues("inference.retry.attempt-timeout=7s")
                .run((context) -> {
                    RetryTimer timer = context.getBean(RetryTimer.class);
                    assertThat(timer.isStarted()).isFalse();
                    timer.schedule(Duration.ofHours(1), () -> {
                    }).close();
                    assertThat(timer.isStarted()).isTrue();
                    assertThat(threadNamed("inference-retry-timer")).isTrue();
                    context.close();
                    assertThat(timer).hasToString("RetryTimer[started]");
                    assertThat(waitForNoThreadNamed("inference-retry-timer")).isTrue();
                });
        }

        private static boolean threadNamed(String name) {
            return Thread.getAllStackTraces().keySet().stream().anyMatch((thread) -> thread.getName().equals(name));
        }

        /** Waits, with a deadline, for every live thread of that name to end. */
        private static boolean waitForNoThreadNamed(String name) throws InterruptedException {
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.getName().equals(name)) {
                    thread.join(Duration.ofSeconds(10).toMillis());
                }
            }
            return !threadNamed(name);
        }
    }

    @Nested
    class Endpoint {

        @Test
        void showsEachBeansTimeouts() {
            InferenceRetryTimeoutsTests.this.runner
                .withConfiguration(AutoConfigurations.of(InferenceRetryEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry",
                        "inference.retry.attempt-timeout=20s", "inference.retry.clients.local.first-token-timeout=10s",
                        "inference.retry.clients.local.stream-idle-timeout=500ms")
                .run((context) -> {
                    InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
                    assertThat(endpoint.client("openai").timeouts())
                        .isEqualTo(new TimeoutsDescriptor("PT20S", null, null));
                    assertThat(endpoint.client("local").timeouts())
                        .isEqualTo(new TimeoutsDescriptor("PT20S", "PT10S", "PT0.5S"));
                });
        }

        @Test
        void showsNoTimeoutsWhenNoneIsSet() {
            InferenceRetryTimeoutsTests.this.runner
                .withConfiguration(AutoConfigurations.of(InferenceRetryEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry")
                .run((context) -> assertThat(context.getBean(InferenceRetryEndpoint.class).client("openai").timeouts())
                    .isNull());
        }
    }

    @Nested
    class Meters {

        private final ApplicationContextRunner metered = InferenceRetryTimeoutsTests.this.runner
            .withConfiguration(AutoConfigurations.of(InferenceRetryMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class);

        @Test
        void registerTheStallCounterAtZeroWhereTheIdleTimeoutIsSet() {
            this.metered.withPropertyValues("inference.retry.clients.local.stream-idle-timeout=5s").run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find(MeterRetryListener.STREAMS_STALLED).tag("client", "local").counter())
                    .isNotNull()
                    .satisfies((counter) -> assertThat(counter.count()).isZero());
                assertThat(registry.find(MeterRetryListener.STREAMS_STALLED).tag("client", "openai").counter())
                    .isNull();
            });
        }

        @Test
        void countAStallOfTheBeansStream() {
            this.metered.withPropertyValues("inference.retry.stream-idle-timeout=5s").run((context) -> {
                context.getBean("openai", RetryClient.class).retrier().streamStalled(Duration.ofSeconds(5));
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get(MeterRetryListener.STREAMS_STALLED).tag("client", "openai").counter().count())
                    .isEqualTo(1);
            });
        }
    }
}
