package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.RetryClient;
import dev.inference.retry.time.ShutdownSignal;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

class InferenceRetryOperationsAutoConfigurationTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryOperationsAutoConfiguration.class))
        .withUserConfiguration(TestClients.OneClient.class)
        .withPropertyValues(TestClients.POLICY);

    @Nested
    class Shutdown {

        @Test
        void givesEveryRetryingClientTheApplicationsSignal() {
            runner.run((context) -> assertThat(context.getBean("openai", RetryClient.class).retrier().shutdownSignal())
                .containsSame(context.getBean(ShutdownSignal.class)));
        }

        @Test
        void firesTheSignalWhenTheContextBeginsToClose() {
            runner.run((context) -> {
                ShutdownSignal signal = context.getBean(ShutdownSignal.class);
                assertThat(signal.isShutDown()).isFalse();

                context.close();

                assertThat(signal.isShutDown()).isTrue();
            });
        }

        @Test
        void endsAWaitingCallAtOnceWhenTheContextCloses() {
            // A real wait of an hour: only the shutdown can end it within the test's deadline.
            runner.withPropertyValues("inference.retry.stable-delay=1h", "inference.retry.max-delay=1h")
                .run((context) -> {
                    Script script = context.getBean(Script.class).failNext(new HttpStatusException(503, "busy", null));
                    InferenceClient client = context.getBean("openai", InferenceClient.class);
                    CompletableFuture<Throwable> outcome = CompletableFuture
                        .supplyAsync(() -> catchThrowable(() -> client.invoke(REQUEST)));
                    awaitFirstAttempt(script);

                    long closing = System.nanoTime();
                    context.close();

                    assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(ShutdownException.class)
                        .hasMessageStartingWith("The application is shutting down: ");
                    assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
                    assertThat(script.calls()).isEqualTo(1);
                });
        }

        @Test
        void leavesTheSignalAloneWhenAChildContextCloses() {
            runner.run((context) -> {
                GenericApplicationContext child = new GenericApplicationContext(context);
                child.refresh();

                child.close();

                assertThat(context.getBean(ShutdownSignal.class).isShutDown()).isFalse();
            });
        }

        @Test
        void usesTheApplicationsOwnSignal() {
            runner.withUserConfiguration(OwnSignal.class).run((context) -> {
                assertThat(context).hasSingleBean(ShutdownSignal.class);
                assertThat(context.getBean("openai", RetryClient.class).retrier().shutdownSignal())
                    .containsSame(context.getBean("ownSignal", ShutdownSignal.class));
            });
        }

        private static void awaitFirstAttempt(Script script) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (script.calls() == 0) {
                assertThat(System.nanoTime()).as("waiting for the first attempt").isLessThan(deadline);
                Thread.onSpinWait();
            }
            // The attempt has failed by now or is about to: the close ends the hour's wait, or finds the
            // failure before the wait and refuses the retry; either way the call ends as shut down.
        }
    }

    @Nested
    class Observations {

        @Test
        void observeEachAttemptWhenEnabledAndARegistryExists() {
            runner.withUserConfiguration(Registry.class)
                .withPropertyValues("inference.retry.observations.enabled=true")
                .run((context) -> {
                    context.getBean("openai", InferenceClient.class).invoke(REQUEST);

                    TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                        .hasSingleObservationThat()
                        .hasNameEqualTo("inference.retry.attempt")
                        .hasLowCardinalityKeyValue("client", "openai")
                        .hasLowCardinalityKeyValue("outcome", "success");
                });
        }

        @Test
        void areOffUnlessEnabled() {
            runner.withUserConfiguration(Registry.class).run((context) -> {
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);

                TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                    .doesNotHaveAnyObservation();
            });
        }

        @Test
        void needARegistry() {
            runner.withPropertyValues("inference.retry.observations.enabled=true").run((context) -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(ObservationRegistry.class);
                assertThat(context.getBean("openai", InferenceClient.class).invoke(REQUEST).attempts()).isEqualTo(1);
            });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnSignal {

        @Bean
        ShutdownSignal ownSignal() {
            return ShutdownSignal.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Registry {

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }
}
