package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.InferenceClient;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.ClientDescriptor;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.CooldownDescriptor;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.PolicyDescriptor;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.RetryDescriptor;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

class InferenceRetryEndpointTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryEndpointAutoConfiguration.class))
        .withUserConfiguration(Clients.class)
        .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry",
                "inference.retry.stable-retries=1", "inference.retry.stable-delay=100ms",
                "inference.retry.max-attempts=4", "inference.retry.max-delay=300ms",
                "inference.retry.clients.local.max-attempts=2", "inference.retry.clients.local.stable-retries=0",
                "inference.retry.clients.off.enabled=false");

    @Test
    void listsEveryRetriedClientLazyOnesIncludedWithItsPolicyAndSchedule() {
        this.runner.run((context) -> {
            InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
            assertThat(endpoint.clients().clients()).containsOnlyKeys("openai", "local");
            assertThat(endpoint.clients().clients().get("openai")).isEqualTo(new ClientDescriptor("openai",
                    new PolicyDescriptor(1, "PT0.1S", 4, "PT0.3S"),
                    java.util.List.of(new RetryDescriptor(1, "PT0.1S", "PT0.09S", "PT0.11S"),
                            new RetryDescriptor(2, "PT0.2S", "PT0.18S", "PT0.22S"),
                            new RetryDescriptor(3, "PT0.3S", "PT0.27S", "PT0.33S"))));
            assertThat(endpoint.clients().clients().get("local")).isEqualTo(new ClientDescriptor("local",
                    new PolicyDescriptor(0, "PT0.1S", 2, "PT0.3S"),
                    java.util.List.of(new RetryDescriptor(1, "PT0.2S", "PT0.18S", "PT0.22S"))));
        });
    }

    @Test
    void describesOneClientByItsBeanName() {
        this.runner.run((context) -> {
            InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
            assertThat(endpoint.client("local")).isEqualTo(endpoint.clients().clients().get("local"));
            assertThat(endpoint.client("off")).isNull();
        });
    }

    @Test
    void listsAtMostTwentyRetries() {
        this.runner.withPropertyValues("inference.retry.max-attempts=1000").run((context) -> {
            ClientDescriptor openai = context.getBean(InferenceRetryEndpoint.class).client("openai");
            assertThat(openai.schedule()).hasSize(20);
            assertThat(openai.schedule().get(19)).isEqualTo(new RetryDescriptor(20, "PT0.3S", "PT0.27S", "PT0.33S"));
        });
    }

    @Test
    void listsNoRetryForASingleAttempt() {
        this.runner.withPropertyValues("inference.retry.max-attempts=1", "inference.retry.stable-retries=0")
            .run((context) -> assertThat(context.getBean(InferenceRetryEndpoint.class).client("openai").schedule())
                .isEmpty());
    }

    @ParameterizedTest
    @ValueSource(classes = { InferenceRetryAutoConfigurationTests.OwnRetryClient.class,
            InferenceRetryAutoConfigurationTests.OwnRetryClientAfterAnother.class,
            InferenceRetryAutoConfigurationTests.LazyOwnRetryClient.class })
    void describesAClientThatIsARetryClientAlreadyByItsOwnNameAndPolicyOnceItIsMade(Class<?> configuration) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                    InferenceRetryEndpointAutoConfiguration.class))
            .withUserConfiguration(VirtualTime.class, configuration)
            .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry")
            .withPropertyValues(TestClients.POLICY)
            .run((context) -> {
                context.getBean("openai");
                assertThat(context.getBean(InferenceRetryEndpoint.class).client("openai"))
                    .isEqualTo(new ClientDescriptor("own", new PolicyDescriptor(0, "PT0.001S", 2, "PT0.001S"),
                            java.util.List.of(new RetryDescriptor(1, "PT0.001S", "PT0.0009S", "PT0.0011S"))));
            });
    }

    @ParameterizedTest
    @CsvSource({ "factoryMade, dev.inference.retry.autoconfigure.TestClients$UntypedFactoryMade",
            "lazyFactoryMade, dev.inference.retry.autoconfigure.TestClients$LazyUntypedFactoryMade" })
    void listsTheProductOfAFactoryBeanThatHidesItsTypeBeforeItIsMade(String name, Class<?> configuration) {
        this.runner.withUserConfiguration(configuration).run((context) -> {
            InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
            assertThat(endpoint.clients().clients()).containsOnlyKeys("openai", "local", name);
            assertThat(endpoint.client(name)).isEqualTo(new ClientDescriptor(name,
                    new PolicyDescriptor(1, "PT0.1S", 4, "PT0.3S"),
                    java.util.List.of(new RetryDescriptor(1, "PT0.1S", "PT0.09S", "PT0.11S"),
                            new RetryDescriptor(2, "PT0.2S", "PT0.18S", "PT0.22S"),
                            new RetryDescriptor(3, "PT0.3S", "PT0.27S", "PT0.33S"))));
        });
    }

    @Test
    void isAbsentWithoutTheActuator() {
        this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(InferenceRetryEndpoint.class));
    }

    @Test
    void isAbsentWhenNotExposed() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(InferenceRetryEndpoint.class));
    }

    @Nested
    class Cooldowns {

        private final ApplicationContextRunner cooled = runner
            .withConfiguration(AutoConfigurations.of(InferenceRetryProtectionAutoConfiguration.class))
            .withPropertyValues("inference.retry.cooldown.store=local", "inference.retry.clients.local.cooldown-key=account");

        @Test
        void showEachClientsKeyWithNoCooldownInForce() {
            cooled.run((context) -> {
                InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
                assertThat(endpoint.client("openai").cooldown()).isEqualTo(new CooldownDescriptor("openai", "PT0S", null));
                assertThat(endpoint.client("local").cooldown()).isEqualTo(new CooldownDescriptor("account", "PT0S", null));
            });
        }

        @Test
        void showTheCooldownInForceAndWhy() {
            cooled.run((context) -> {
                LocalCooldownStore store = context.getBean(LocalCooldownStore.class);
                store.coolDown("openai", Duration.ofMinutes(2), CooldownReason.RATE_LIMIT);
                store.coolDown("account", Duration.ofMinutes(2));

                InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);

                assertThat(endpoint.client("openai").cooldown()).satisfies((cooldown) -> {
                    assertThat(cooldown.key()).isEqualTo("openai");
                    assertThat(Duration.parse(cooldown.remaining())).isBetween(Duration.ofSeconds(90), Duration.ofMinutes(2));
                    assertThat(cooldown.reason()).isEqualTo("rate_limit");
                });
                assertThat(endpoint.clients().clients().get("local").cooldown().reason()).isEqualTo("retry_after");
            });
        }

        @Test
        void showNoCooldownWithoutAStore() {
            runner.run((context) -> assertThat(context.getBean(InferenceRetryEndpoint.class).client("openai").cooldown())
                .isNull());
        }
    }

    /** The shared eager {@code openai} and lazy {@code local} clients, and {@code off}, which is not retried. */
    @Configuration(proxyBeanMethods = false)
    @Import(TestClients.LazyLocal.class)
    static class Clients {

        @Bean
        InferenceClient off(Script script) {
            return new ScriptedClient(script);
        }
    }
}
