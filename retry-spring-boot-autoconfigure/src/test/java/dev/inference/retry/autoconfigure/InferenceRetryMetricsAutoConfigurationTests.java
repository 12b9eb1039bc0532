package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatException;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryBudgetExhaustedException;
import dev.inference.retry.RetryClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class InferenceRetryMetricsAutoConfigurationTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryMetricsAutoConfiguration.class))
        .withUserConfiguration(VirtualTime.class, TestClients.OneClient.class, TestClients.AlsoLazy.class)
        .withBean(SimpleMeterRegistry.class)
        .withPropertyValues(TestClients.POLICY);

    @Test
    void registersTheExhaustedCountersOfEveryRetriedClientAtZeroAtStartup() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(context.getBeanFactory().containsSingleton("lazy")).isFalse();
            for (String client : new String[] { "openai", "lazy" }) {
                assertThat(RetryMeters.exhausted(registry, client, "invoke")).isZero();
                assertThat(RetryMeters.exhausted(registry, client, "stream")).isZero();
            }
        });
    }

    @Test
    void registersTheExhaustedCountersOfTheProductOfAFactoryBeanThatHidesItsTypeAtZeroAtStartup() {
        this.runner.withUserConfiguration(TestClients.UntypedFactoryMade.class).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.exhausted(registry, "factoryMade", "invoke")).isZero();
            assertThat(RetryMeters.exhausted(registry, "factoryMade", "stream")).isZero();
        });
    }

    @ParameterizedTest
    @ValueSource(classes = { InferenceRetryAutoConfigurationTests.OwnRetryClient.class,
            InferenceRetryAutoConfigurationTests.OwnRetryClientAfterAnother.class })
    void registersTheExhaustedCountersOfAClientThatIsARetryClientAlreadyUnderItsOwnName(Class<?> configuration) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                    InferenceRetryMetricsAutoConfiguration.class))
            .withUserConfiguration(VirtualTime.class, configuration)
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues(TestClients.POLICY)
            .run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find(MeterRetryListener.EXHAUSTED).tag("client", "openai").counters()).isEmpty();
                assertThat(RetryMeters.exhausted(registry, "own", "invoke")).isZero();
                assertThat(RetryMeters.exhausted(registry, "own", "stream")).isZero();
            });
    }

    static Stream<Arguments> failures() {
        return Stream.of(Arguments.of(new NetworkException("reset", null), "retryable_failure", "network"),
                Arguments.of(new HttpStatusException(429, "slow down", Duration.ofMillis(1)), "retryable_failure", "http_429"),
                Arguments.of(new HttpStatusException(503, "busy", null), "retryable_failure", "http_503"),
                Arguments.of(new HttpStatusException(400, "bad request", null), "failure", "http_400"),
                Arguments.of(new CancellationException("cancelled"), "failure", "cancelled"),
                Arguments.of(new NetworkException("closed", new CancellationException("cancelled")), "failure", "cancelled"),
                Arguments.of(new DeadlineExceededException("too late"), "failure", "deadline"),
                Arguments.of(new ExhaustedException(2, new HttpStatusException(503, "busy", null)), "failure",
                        "ExhaustedException"),
                Arguments.of(new IllegalStateException("bug"), "failure", "IllegalStateException"));
    }

    @ParameterizedTest(name = "{1}, {2}")
    @MethodSource("failures")
    void countsAFailedAttemptByOutcomeAndErrorThenTheAttemptsAfterIt(RuntimeException failure, String outcome,
            String error) {
        this.runner.run((context) -> {
            context.getBean(Script.class).failNext(failure);
            InferenceClient client = context.getBean("openai", InferenceClient.class);
            boolean retryable = outcome.equals("retryable_failure");
            if (retryable) {
                client.invoke(REQUEST);
            }
            else {
                assertThatException().isThrownBy(() -> client.invoke(REQUEST)).isSameAs(failure);
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", outcome, error)).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(retryable ? 1 : 0);
            assertThat(RetryMeters.allAttempts(registry)).isEqualTo(retryable ? 2 : 1);
        });
    }

    @Test
    void countsStreamEstablishmentAttemptsUnderTheStreamOperation() {
        this.runner.run((context) -> {
            context.getBean(Script.class).failNext(new NetworkException("refused", null));
            try (StreamReader reader = context.getBean("openai", InferenceClient.class).stream(REQUEST)) {
                assertThat(reader.hasNext()).isFalse();
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.attempts(registry, "openai", "stream", "retryable_failure", "network")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "stream", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isZero();
        });
    }

    @Test
    void countsAnExhaustedCallOnceAndEveryWaitWithItsExactDelay() {
        this.runner.run((context) -> {
            context.getBean(Script.class).failAlways(new HttpStatusException(503, "busy", null));
            InferenceClient client = context.getBean("openai", InferenceClient.class);
            assertThatException().isThrownBy(() -> client.invoke(REQUEST)).isInstanceOf(ExhaustedException.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "retryable_failure", "http_503")).isEqualTo(3);
            assertThat(RetryMeters.exhausted(registry, "openai", "invoke")).isEqualTo(1);
            assertThat(RetryMeters.exhausted(registry, "openai", "stream")).isZero();
            Timer backoff = registry.get(MeterRetryListener.BACKOFF).tags("client", "openai", "operation", "invoke").timer();
            assertThat(backoff.count()).isEqualTo(2);
            assertThat(backoff.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(Duration.ofMillis(100 + 200).toNanos());
            assertThat(context.getBean(VirtualTime.Waits.class).all())
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
        });
    }

    @Test
    void countsTheAttemptsOfEachClientUnderItsOwnName() {
        this.runner.withUserConfiguration(TestClients.TwoClients.class).run((context) -> {
            context.getBean(Script.class).failNext(new NetworkException("reset", null));
            context.getBean("local", InferenceClient.class).invoke(REQUEST);
            context.getBean("openai", InferenceClient.class).invoke(REQUEST);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.attempts(registry, "local", "invoke", "retryable_failure", "network")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "local", "invoke", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(1);
            assertThat(registry.get(MeterRetryListener.ATTEMPTS).tag("client", "openai").counters()).hasSize(2);
        });
    }

    @Test
    void countsAttemptsInCountersWhenTheRegistryBeanIsAComposite() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                    InferenceRetryMetricsAutoConfiguration.class))
            .withUserConfiguration(VirtualTime.class, TestClients.OneClient.class)
            .withBean(CompositeMeterRegistry.class, () -> new CompositeMeterRegistry().add(new SimpleMeterRegistry()))
            .withPropertyValues(TestClients.POLICY)
            .run((context) -> {
                context.getBean(Script.class).failNext(new NetworkException("reset", null));
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(RetryMeters.attempts(registry, "openai", "invoke", "retryable_failure", "network")).isEqualTo(1);
                assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(1);
            });
    }

    @Test
    void countsTheAttemptsOfAClientUnderTheNameACustomizerGaveIt() {
        this.runner
            .withBean("renaming", RetrierCustomizer.class,
                    () -> (beanName, builder) -> builder.name(beanName + "-renamed"))
            .run((context) -> {
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(RetryMeters.attempts(registry, "openai-renamed", "invoke", "success", "none")).isEqualTo(1);
                assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isZero();
            });
    }

    @Test
    void countsEveryAttemptOfCallsFromSeveralThreadsExactly() {
        int threads = 4;
        int calls = 5_000;
        this.runner.run((context) -> {
            InferenceClient client = context.getBean("openai", InferenceClient.class);
            Concurrently.run(threads, (thread) -> {
                for (int i = 0; i < calls; i++) {
                    client.invoke(REQUEST);
                }
            });
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(threads * calls);
            assertThat(context.getBean(Script.class).calls()).isEqualTo(threads * calls);
        });
    }

    @Test
    void backsOffForTheApplicationsOwnMeterListenerSoThatEachAttemptCountsOnce() {
        this.runner.withUserConfiguration(OwnMeterListener.class).run((context) -> {
            context.getBean("openai", InferenceClient.class).invoke(REQUEST);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(RetryMeters.allAttempts(registry)).isEqualTo(1);
            assertThat(context).getBeans(MeterRetryListener.class).containsOnlyKeys("ownMeterListener");
        });
    }

    /** The application's own metrics listener, on the same registry. */
    @Configuration(proxyBeanMethods = false)
    static class OwnMeterListener {

        @Bean
        MeterRetryListener ownMeterListener(MeterRegistry registry) {
            return new MeterRetryListener(registry, List.of());
        }
    }

    @Test
    void leavesRetryingOnWithoutMicrometer() {
        this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(MeterRetryListener.class);
            assertThat(context.getBean("openai")).isInstanceOf(RetryClient.class);
        });
    }

    @Test
    void leavesRetryingOnWithoutAMeterRegistryBean() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                    InferenceRetryMetricsAutoConfiguration.class))
            .withUserConfiguration(VirtualTime.class, TestClients.OneClient.class, TestClients.AlsoLazy.class)
            .withPropertyValues(TestClients.POLICY)
            .run((context) -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(MeterRetryListener.class);
                assertThat(context.getBean("openai")).isInstanceOf(RetryClient.class);
            });
    }

    @Nested
    class BudgetAndCooldownMeters {

        private final ApplicationContextRunner protectedRunner = runner
            .withConfiguration(AutoConfigurations.of(InferenceRetryProtectionAutoConfiguration.class));

        @Test
        void registerTheBudgetRefusalsAtZeroWhereABudgetIsOn() {
            protectedRunner.withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=0.1",
                    "inference.retry.clients.lazy.budget.enabled=false")
                .run((context) -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MeterRetryListener.BUDGET_REFUSED).tags("client", "openai").counters())
                        .extracting(Counter::count)
                        .containsExactly(0.0, 0.0);
                    assertThat(registry.find(MeterRetryListener.BUDGET_REFUSED).tag("client", "lazy").counters()).isEmpty();
                });
        }

        @Test
        void countACallTheBudgetEndedAsRefusedAndExhausted() {
            protectedRunner.withPropertyValues("inference.retry.budget.max-tokens=1", "inference.retry.budget.token-ratio=0.1")
                .run((context) -> {
                    context.getBean(Script.class).failAlways(new HttpStatusException(503, "busy", null));
                    assertThatExceptionOfType(RetryBudgetExhaustedException.class)
                        .isThrownBy(() -> context.getBean("openai", InferenceClient.class).invoke(REQUEST));
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MeterRetryListener.BUDGET_REFUSED)
                        .tags("client", "openai", "operation", "invoke")
                        .counter()
                        .count()).isEqualTo(1);
                    assertThat(registry.get(MeterRetryListener.EXHAUSTED)
                        .tags("client", "openai", "operation", "invoke")
                        .counter()
                        .count()).isEqualTo(1);
                });
        }

        @Test
        void registerTheCooldownWaitsAtZeroWhereAStoreIsOn() {
            protectedRunner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get(MeterRetryListener.COOLDOWN_WAITS).tag("client", "openai").counter().count())
                    .isZero();
            });
        }

        @Test
        void registerTheCooldownsSetAtZeroPerReasonWhereAStoreIsOn() {
            protectedRunner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get(MeterRetryListener.COOLDOWN_SET).tag("client", "openai").counters())
                    .extracting((counter) -> counter.getId().getTag("reason"), Counter::count)
                    .containsExactlyInAnyOrder(tuple("retry_after", 0.0), tuple("rate_limit", 0.0));
            });
        }

        @Test
        void countTheCooldownsSetByReason() {
            protectedRunner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                context.getBean(Script.class)
                    .failNext(new HttpStatusException(503, "busy", Duration.ofMillis(1), Duration.ofMillis(2)));
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get(MeterRetryListener.COOLDOWN_SET).tags("client", "openai", "reason", "retry_after")
                    .counter().count()).isEqualTo(1);
                assertThat(registry.get(MeterRetryListener.COOLDOWN_SET).tags("client", "openai", "reason", "rate_limit")
                    .counter().count()).isEqualTo(1);
            });
        }

        @Test
        void registerNoBudgetOrCooldownMeterWhenNeitherIsOn() {
            protectedRunner.run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find(MeterRetryListener.BUDGET_REFUSED).meters()).isEmpty();
                assertThat(registry.find(MeterRetryListener.COOLDOWN_WAITS).meters()).isEmpty();
                assertThat(registry.find(MeterRetryListener.COOLDOWN_SET).meters()).isEmpty();
            });
        }
    }
}
