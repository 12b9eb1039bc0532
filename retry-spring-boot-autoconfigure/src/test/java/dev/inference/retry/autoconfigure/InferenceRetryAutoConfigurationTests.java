package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.core.annotation.Order;

class InferenceRetryAutoConfigurationTests {

    static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
        .withUserConfiguration(VirtualTime.class)
        .withPropertyValues(TestClients.POLICY);

    /** Calls the bean once with a target that always fails with 503, and returns the attempts it saw. */
    static int attemptsReachingTarget(AssertableApplicationContext context, String beanName) {
        Script target = context.getBean(Script.class).failAlways(new HttpStatusException(503, "busy", null));
        InferenceClient client = context.getBean(beanName, InferenceClient.class);
        assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> client.invoke(REQUEST));
        return target.calls();
    }

    @Nested
    class Wrapping {

        @Test
        void wrapsAnInferenceClientBeanInARetryClientNamedAfterTheBean() {
            runner.withUserConfiguration(TestClients.OneClient.class).run((context) -> {
                RetryClient client = context.getBean("openai", RetryClient.class);
                assertThat(client.name()).isEqualTo("openai");
                assertThat(client.inner()).isInstanceOf(ScriptedClient.class);
                assertThat(client.policy()).isEqualTo(new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1)));
            });
        }

        @Test
        void retriesTheBeanOnceLayerDeep() {
            runner.withUserConfiguration(TestClients.OneClient.class)
                .run((context) -> assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(3));
        }

        @Test
        void givesEachBeanItsOwnOverridesFieldByField() {
            runner.withUserConfiguration(TestClients.TwoClients.class)
                .withPropertyValues("inference.retry.clients.local.max-attempts=5",
                        "inference.retry.clients.local.stable-delay=20ms")
                .run((context) -> {
                    assertThat(context.getBean("openai", RetryClient.class).policy())
                        .isEqualTo(new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1)));
                    assertThat(context.getBean("local", RetryClient.class).policy())
                        .isEqualTo(new Policy(1, Duration.ofMillis(20), 5, Duration.ofSeconds(1)));
                });
        }

        @Test
        void matchesClientEntriesToCamelCaseBeanNamesAsWritten() {
            runner.withBean("openAiClient", InferenceClient.class, () -> new ScriptedClient(new Script()))
                .withPropertyValues("inference.retry.clients.openAiClient.max-attempts=2")
                .run((context) -> assertThat(context.getBean("openAiClient", RetryClient.class).policy().maxAttempts())
                    .isEqualTo(2));
        }

        @Test
        void takesEveryFieldFromTheClientWhenNothingIsSetAtTheTopLevel() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .withUserConfiguration(TestClients.OneClient.class)
                .withPropertyValues("inference.retry.clients.openai.stable-retries=0",
                        "inference.retry.clients.openai.stable-delay=1s", "inference.retry.clients.openai.max-attempts=2",
                        "inference.retry.clients.openai.max-delay=2s")
                .run((context) -> assertThat(context.getBean("openai", RetryClient.class).policy())
                    .isEqualTo(new Policy(0, Duration.ofSeconds(1), 2, Duration.ofSeconds(2))));
        }

        @Test
        void wrapsNothingAndValidatesNothingWhenDisabled() {
            runner.withUserConfiguration(TestClients.OneClient.class)
                .withPropertyValues("inference.retry.enabled=false", "inference.retry.max-attempts=0",
                        "inference.retry.clients.nobody.max-attempts=1")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("openai")).isInstanceOf(ScriptedClient.class);
                    assertThat(context).doesNotHaveBean(RetriedClients.class);
                });
        }

        @Test
        void leavesABeanSwitchedOffByItsClientEntryUnwrapped() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .withUserConfiguration(TestClients.OneClient.class)
                .withPropertyValues("inference.retry.clients.openai.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("openai")).isInstanceOf(ScriptedClient.class);
                });
        }

        @Test
        void leavesABeanThatIsAlreadyARetryClientAsItIs() {
            runner.withUserConfiguration(AlreadyRetrying.class).run((context) -> {
                RetryClient client = context.getBean("openai", RetryClient.class);
                assertThat(client.name()).isEqualTo("own");
                assertThat(client.inner()).isInstanceOf(ScriptedClient.class);
                assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(2);
            });
        }

        @Test
        void wrapsAScopedProxyAndNotItsTarget() {
            runner.withUserConfiguration(ScopedClient.class).run((context) -> {
                assertThat(context.getBean("openai", RetryClient.class).name()).isEqualTo("openai");
                assertThat(context.getBean("scopedTarget.openai")).isInstanceOf(ScriptedClient.class);
                assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void wrapsALazyBeanWhenItIsCreated() {
            runner.withUserConfiguration(LazyClient.class).run((context) -> {
                assertThat(context.getBeanFactory().containsSingleton("openai")).isFalse();
                assertThat(context.getBean("openai", RetryClient.class).name()).isEqualTo("openai");
                assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void wrapsTheProductOfAFactoryBeanAndNotTheFactory() {
            runner.withUserConfiguration(FactoryMadeClient.class).run((context) -> {
                assertThat(context.getBean("openai", RetryClient.class).name()).isEqualTo("openai");
                assertThat(context.getBean("&openai")).isInstanceOf(ClientFactory.class);
                assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void wrapsTheProductOfAFactoryBeanThatHidesItsTypeOnceItIsMade() {
            runner.withUserConfiguration(UntypedFactoryMadeClient.class).run((context) -> {
                assertThat(context.getBean("openai", RetryClient.class).name()).isEqualTo("openai");
                assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void appliesTheClientEntryOfAFactoryBeanThatHidesItsType() {
            runner.withUserConfiguration(UntypedFactoryMadeClient.class)
                .withPropertyValues("inference.retry.clients.openai.max-attempts=2")
                .run((context) -> assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(2));
        }

        @Test
        void attachesEveryRetryListenerBeanThenAppliesTheCustomizersInOrder() {
            runner.withUserConfiguration(TestClients.OneClient.class, Listening.class).run((context) -> {
                Script target = context.getBean(Script.class)
                    .failNext(new HttpStatusException(429, "slow down", null));
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);
                assertThat(context.getBean(Listening.class).events).containsExactly("customizer 1: openai",
                        "customizer 2: openai", "listener: openai attempt 1 failed",
                        "listener: openai attempt 2 succeeded");
                assertThat(target.calls()).isEqualTo(2);
            });
        }

        @Test
        void attachesToEachClientTheListenerThatAPerClientListenerBeanGivesForIt() {
            runner.withUserConfiguration(TestClients.TwoClients.class, PerClientListening.class).run((context) -> {
                context.getBean("openai", InferenceClient.class).invoke(REQUEST);
                context.getBean("local", InferenceClient.class).invoke(REQUEST);
                assertThat(context.getBean(PerClientListening.class).events).containsExactlyInAnyOrder(
                        "listener for openai: openai attempt 1", "listener for local: local attempt 1");
            });
        }

        @Test
        void startsWithNoInferenceClientBeanAndNoPolicy() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RetriedClients.class).clients()).isEmpty();
                });
        }
    }

    /**
     * A bean whose object is a {@code RetryClient} already, declared as a plain
     * {@code InferenceClient}: its type is known only once it is made. It is left as it is and needs
     * no policy, however early or late it is made.
     */
    @Nested
    class DeclaredAsAnInferenceClientButARetryClientAlready {

        private final ApplicationContextRunner withoutPolicy = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
            .withUserConfiguration(VirtualTime.class);

        @Test
        void startsWithoutAPolicyWhenMadeEagerly() {
            withoutPolicy.withUserConfiguration(OwnRetryClient.class).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThatItIsTheOwnClient(context);
            });
        }

        @Test
        void startsWithoutAPolicyWhenLazy() {
            withoutPolicy.withUserConfiguration(LazyOwnRetryClient.class).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThatItIsTheOwnClient(context);
            });
        }

        @Test
        void startsWithoutAPolicyWhenMadeAfterAnotherClient() {
            withoutPolicy.withUserConfiguration(OwnRetryClientAfterAnother.class)
                .withPropertyValues("inference.retry.clients.first.stable-retries=0",
                        "inference.retry.clients.first.stable-delay=1ms",
                        "inference.retry.clients.first.max-attempts=2", "inference.retry.clients.first.max-delay=1ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("first", RetryClient.class).name()).isEqualTo("first");
                    assertThatItIsTheOwnClient(context);
                });
        }

        @Test
        void isLeftAsItIsAndNotMadeAtStartupWhenLazyAndAPolicyIsSet() {
            runner.withUserConfiguration(LazyOwnRetryClient.class).run((context) -> {
                assertThat(context.getBeanFactory().containsSingleton("openai")).isFalse();
                assertThatItIsTheOwnClient(context);
            });
        }

        private static void assertThatItIsTheOwnClient(AssertableApplicationContext context) {
            RetryClient client = context.getBean("openai", RetryClient.class);
            assertThat(client.name()).isEqualTo("own");
            assertThat(client.inner()).isInstanceOf(ScriptedClient.class);
            assertThat(attemptsReachingTarget(context, "openai")).isEqualTo(2);
        }
    }

    /** The application's own retrying client: 2 attempts, named "own", declared as an InferenceClient. */
    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class OwnRetryClient {

        static final Policy POLICY = new Policy(0, Duration.ofMillis(1), 2, Duration.ofMillis(1));

        @Bean
        InferenceClient openai(Script script, VirtualTime.Waits waits) {
            return RetryClient.of(new ScriptedClient(script),
                    Retrier.builder(POLICY).name("own").sleeper(waits).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class LazyOwnRetryClient {

        @Bean
        @Lazy
        InferenceClient openai(Script script, VirtualTime.Waits waits) {
            return new OwnRetryClient().openai(script, waits);
        }
    }

    /** A plain client, {@code first}, registered and so made before the own retrying client. */
    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class OwnRetryClientAfterAnother {

        @Bean
        InferenceClient first(Script script) {
            return new ScriptedClient(script);
        }

        @Bean
        InferenceClient openai(Script script, VirtualTime.Waits waits) {
            return new OwnRetryClient().openai(script, waits);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class AlreadyRetrying {

        @Bean
        RetryClient openai(Script script, VirtualTime.Waits waits) {
            return RetryClient.of(new ScriptedClient(script),
                    Retrier.builder(new Policy(0, Duration.ofMillis(1), 2, Duration.ofMillis(1)))
                .name("own")
                .sleeper(waits)
                .build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class ScopedClient {

        @Bean
        @Scope(scopeName = "prototype", proxyMode = ScopedProxyMode.TARGET_CLASS)
        ScriptedClient openai(Script script) {
            return new ScriptedClient(script);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class LazyClient {

        @Bean
        @Lazy
        InferenceClient openai(Script script) {
            return new ScriptedClient(script);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class FactoryMadeClient {

        @Bean
        ClientFactory openai(Script script) {
            return new ClientFactory(script);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.SharedScript.class)
    static class UntypedFactoryMadeClient {

        @Bean
        @SuppressWarnings("rawtypes")
        FactoryBean openai(Script script) {
            return new ClientFactory(script);
        }
    }

    static class ClientFactory implements FactoryBean<InferenceClient> {

        private final Script script;

        ClientFactory(Script script) {
            this.script = script;
        }

        @Override
        public InferenceClient getObject() {
            return new ScriptedClient(this.script);
        }

        @Override
        public Class<?> getObjectType() {
            return InferenceClient.class;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PerClientListening {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        PerClientRetryListener perClientListener() {
            return new PerClientRetryListener() {
                @Override
                public RetryListener forClient(String client) {
                    return new RetryListener() {
                        @Override
                        public void attemptFinished(AttemptEvent event) {
                            PerClientListening.this.events
                                .add("listener for " + client + ": " + event.client() + " attempt " + event.attempt());
                        }
                    };
                }

                @Override
                public void attemptFinished(AttemptEvent event) {
                    PerClientListening.this.events.add("shared listener: " + event.client());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listening {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        RetryListener recordingListener() {
            return new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    Listening.this.events.add("listener: " + event.client() + " attempt " + event.attempt() + " "
                            + (event.succeeded() ? "succeeded" : "failed"));
                }
            };
        }

        @Bean
        @Order(2)
        RetrierCustomizer second() {
            return (beanName, builder) -> this.events.add("customizer 2: " + beanName);
        }

        @Bean
        @Order(1)
        RetrierCustomizer first() {
            return (beanName, builder) -> this.events.add("customizer 1: " + beanName);
        }
    }
}
