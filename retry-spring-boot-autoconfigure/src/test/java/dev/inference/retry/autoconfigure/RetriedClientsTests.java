package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.InferenceClient;
import dev.inference.retry.RetryClient;
import dev.inference.retry.autoconfigure.settings.ClientEntries;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Startup validation: every bean to retry resolves to a complete, valid policy, and every entry
 * under {@code inference.retry.clients} names a bean, or the application does not start.
 */
class RetriedClientsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
        .withUserConfiguration(TestClients.OneClient.class);

    private static String[] policyWithout(String field) {
        return Arrays.stream(TestClients.POLICY)
            .filter((property) -> !property.startsWith("inference.retry." + field + "="))
            .toArray(String[]::new);
    }

    private static String[] policyWith(String... overrides) {
        return Stream.concat(Arrays.stream(TestClients.POLICY), Arrays.stream(overrides))
            .toArray(String[]::new);
    }

    private static InvalidRetryPropertyException startupFailure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return causeOfType(context.getStartupFailure(), InvalidRetryPropertyException.class);
    }

    static <T extends Throwable> T causeOfType(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("No " + type.getName() + " in the cause chain of " + failure, failure);
    }

    @Nested
    class MissingField {

        @ParameterizedTest
        @ValueSource(strings = { "stable-retries", "stable-delay", "max-attempts", "max-delay" })
        void failsStartupNamingTheBeanAndBothPropertiesThatCouldSetIt(String field) {
            runner.withPropertyValues(policyWithout(field)).run((context) -> {
                InvalidRetryPropertyException failure = startupFailure(context);
                assertThat(failure).hasMessage("InferenceClient bean 'openai': inference.retry." + field
                        + " is not set: must be set, or inference.retry.clients.openai." + field
                        + " instead; there is no default");
                assertThat(failure.beanName()).isEqualTo("openai");
                assertThat(failure.property()).isEqualTo("inference.retry." + field);
                assertThat(failure.value()).isEmpty();
            });
        }

        @Test
        void failsStartupForALazyFactoryBeanThatHidesItsProductsType() {
            runner.withUserConfiguration(TestClients.LazyUntypedFactoryMade.class)
                .withPropertyValues(policyWithout("max-delay"))
                .withPropertyValues("inference.retry.clients.openai.enabled=false")
                .run((context) -> assertThat(startupFailure(context)).hasMessage(
                        "InferenceClient bean 'lazyFactoryMade': inference.retry.max-delay is not set: must be set, "
                                + "or inference.retry.clients.lazyFactoryMade.max-delay instead; there is no default"));
        }

        @Test
        void failsStartupForALazyBean() {
            runner.withUserConfiguration(TestClients.AlsoLazy.class)
                .withPropertyValues(policyWithout("max-delay"))
                .withPropertyValues("inference.retry.clients.openai.enabled=false")
                .run((context) -> assertThat(startupFailure(context)).hasMessage(
                        "InferenceClient bean 'lazy': inference.retry.max-delay is not set: must be set, "
                                + "or inference.retry.clients.lazy.max-delay instead; there is no default"));
        }
    }

    @Nested
    class BrokenRule {

        @ParameterizedTest(name = "{0}={1}")
        @CsvSource(delimiter = '|', textBlock = """
                max-attempts   | 0            | 0                           | must be at least 1
                stable-retries | -1           | -1                          | must not be negative
                stable-retries | 3            | 3                           | must be less than inference.retry.max-attempts (3)
                stable-delay   | 0ms          | PT0S                        | must be a positive duration
                stable-delay   | -1s          | PT-1S                       | must be a positive duration
                max-delay      | 50ms         | PT0.05S                     | must be at least inference.retry.stable-delay (PT0.1S)
                stable-delay   | 99999999999d | PT2399999999976H            | must be at most PT2562047H47M16.854775807S (the longest wait counted in nanoseconds)
                max-delay      | 106752d      | PT2562048H                  | must be at most PT2562047H47M16.854775807S (the longest wait counted in nanoseconds)
                """)
        void failsStartupNamingTheBeanThePropertyTheValueAndTheRule(String field, String value, String bound,
                String rule) {
            runner.withPropertyValues(policyWith("inference.retry." + field + "=" + value)).run((context) -> {
                InvalidRetryPropertyException failure = startupFailure(context);
                assertThat(failure).hasMessage("InferenceClient bean 'openai': inference.retry." + field + " = "
                        + bound + " is invalid: " + rule);
                assertThat(failure.property()).isEqualTo("inference.retry." + field);
                assertThat(failure.rule()).isEqualTo(rule);
            });
        }

        @Test
        void namesTheClientPropertyWhenTheValueCameFromTheClient() {
            runner.withPropertyValues(policyWith("inference.retry.clients.openai.max-attempts=1"))
                .run((context) -> assertThat(startupFailure(context)).hasMessage("InferenceClient bean 'openai': "
                        + "inference.retry.stable-retries = 1 is invalid: must be less than "
                        + "inference.retry.clients.openai.max-attempts (1)"));
        }

        @Test
        void failsBindingNamingThePropertyWhenAValueIsNotANumber() {
            runner.withPropertyValues(policyWith("inference.retry.clients.openai.max-attempts=three"))
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(causeOfType(context.getStartupFailure(), BindException.class)).hasMessage("Failed to bind properties under 'inference.retry.clients.openai.max-attempts' "
                                + "to java.lang.Integer");
                });
        }
    }

    @Nested
    class ClientEntries {

        @Test
        void failStartupWhenOneNamesNoInferenceClientBean() {
            runner.withPropertyValues(policyWith("inference.retry.clients.opneai.max-attempts=2")).run((context) -> {
                InvalidRetryPropertyException failure = startupFailure(context);
                assertThat(failure).hasMessage("inference.retry.clients.opneai names no InferenceClient bean: "
                        + "must be the name of an InferenceClient bean (one of [openai])");
                assertThat(failure.beanName()).isEqualTo("opneai");
                assertThat(failure.action()).isEqualTo("Rename inference.retry.clients.opneai after the "
                        + "InferenceClient bean it is meant for (one of [openai]), or remove it.");
            });
        }

        @Test
        void failStartupWhenOneNamesABeanThatIsNotAnInferenceClient() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .withBean("script", Script.class)
                .withPropertyValues("inference.retry.clients.script.enabled=false")
                .run((context) -> assertThat(startupFailure(context)).hasMessage(
                        "inference.retry.clients.script names no InferenceClient bean: "
                                + "must be the name of an InferenceClient bean (there is none)"));
        }

        @Test
        void failStartupWhenOneNamesAFactoryBeanThatHidesAProductThatIsNotAnInferenceClient() {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .withUserConfiguration(UntypedTextFactory.class)
                .withPropertyValues("inference.retry.clients.text.enabled=false")
                .run((context) -> assertThat(startupFailure(context)).hasMessage(
                        "inference.retry.clients.text names no InferenceClient bean: "
                                + "must be the name of an InferenceClient bean (there is none)"));
        }

        @Test
        void needNoPolicyWhenTheyLeaveTheirBeanUnwrapped() {
            runner.withPropertyValues("inference.retry.clients.openai.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed());
        }
    }

    /**
     * Entries under {@code inference.retry.clients} name beans the way Spring Boot's relaxed binding
     * names properties: ignoring case, dashes and underscores, as an environment variable, which is
     * upper case without separators, must.
     */
    @Nested
    class RelaxedClientNames {

        private final ApplicationContextRunner camelCase = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
            .withBean("openAiClient", InferenceClient.class, () -> new ScriptedClient(new Script()))
            .withPropertyValues(TestClients.POLICY);

        /** Adds one environment variable, in a property source of the kind Spring Boot reads them from. */
        private static ApplicationContextInitializer<ConfigurableApplicationContext> environmentVariable(String name,
                String value) {
            return (context) -> context.getEnvironment().getPropertySources().addAfter(
                    StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                    new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of(name, value)));
        }

        private static int maxAttempts(AssertableApplicationContext context, String beanName) {
            assertThat(context).hasNotFailed();
            return context.getBean(beanName, RetryClient.class).policy().maxAttempts();
        }

        @Test
        void applyAnEnvironmentVariableToACamelCaseBeanName() {
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS", "2"))
                .run((context) -> assertThat(maxAttempts(context, "openAiClient")).isEqualTo(2));
        }

        @Test
        void switchOffACamelCaseBeanFromAnEnvironmentVariable() {
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_ENABLED", "false"))
                .run((context) -> assertThat(context.getBean("openAiClient")).isInstanceOf(ScriptedClient.class));
        }

        @Test
        void letAnEnvironmentVariableOverrideTheSameEntryWrittenInAFileAsTheBeanIsNamed() {
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS", "2"))
                .withInitializer((context) -> context.getEnvironment().getPropertySources().addLast(
                        new MapPropertySource("application.yml",
                                Map.of("inference.retry.clients.openAiClient.max-attempts", "5",
                                        "inference.retry.clients.openAiClient.max-delay", "2s"))))
                .run((context) -> {
                    assertThat(maxAttempts(context, "openAiClient")).isEqualTo(2);
                    assertThat(context.getBean("openAiClient", RetryClient.class).policy().maxDelay())
                        .isEqualTo(Duration.ofSeconds(2));
                });
        }

        @ParameterizedTest
        @ValueSource(strings = { "open-ai-client", "OpenAiClient", "openaiclient", "OPEN_AI_CLIENT" })
        void applyAnEntryNamedInAnotherFormOfTheBeanName(String name) {
            camelCase.withPropertyValues("inference.retry.clients." + name + ".max-attempts=2")
                .run((context) -> assertThat(maxAttempts(context, "openAiClient")).isEqualTo(2));
        }

        @Test
        void reportAnInvalidValueUnderTheNameItWasBoundAs() {
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS", "0"))
                .run((context) -> assertThat(startupFailure(context)).hasMessage("InferenceClient bean 'openAiClient': "
                        + "inference.retry.clients.openaiclient.max-attempts = 0 is invalid: must be at least 1"));
        }

        @Test
        void failStartupWhenTwoEntriesNameOneBeanWithDifferentSettings() {
            // A name in brackets binds as written, so the binder keeps the two entries apart.
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS", "2"))
                .withPropertyValues("inference.retry.clients.[OpenAiClient].max-attempts=3")
                .run((context) -> assertThat(startupFailure(context)).hasMessage("InferenceClient bean "
                        + "'openAiClient': inference.retry.clients.OpenAiClient sets it differently from "
                        + "inference.retry.clients.openaiclient: must set the bean as "
                        + "inference.retry.clients.openaiclient does, which names the same bean, or be the only entry "
                        + "for it"));
        }

        @Test
        void acceptTwoEntriesThatWriteTheSameBudgetRatioDifferently() {
            camelCase.withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_BUDGET_TOKENRATIO", "0.1"))
                .withPropertyValues("inference.retry.clients.[OpenAiClient].budget.token-ratio=0.10",
                        "inference.retry.budget.max-tokens=10")
                .run((context) -> assertThat(context).hasNotFailed());
        }

        @Test
        void failStartupWhenAnEntryMatchesTwoBeans() {
            camelCase.withBean("openaiClient", InferenceClient.class, () -> new ScriptedClient(new Script()))
                .withInitializer(environmentVariable("INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS", "2"))
                .run((context) -> {
                    InvalidRetryPropertyException failure = startupFailure(context);
                    assertThat(failure).hasMessage("inference.retry.clients.openaiclient matches more than one "
                            + "InferenceClient bean: must match exactly one, names compared as Spring Boot's relaxed "
                            + "binding compares them, ignoring case, dashes and underscores "
                            + "(it matches [openAiClient, openaiClient])");
                    assertThat(failure.action()).isEqualTo("Rename one of the InferenceClient beans [openAiClient, "
                            + "openaiClient] so that their names differ in more than case, dashes and underscores, "
                            + "or remove inference.retry.clients.openaiclient.");
                });
        }
    }

    /** A {@code @Lazy} raw {@code FactoryBean} named {@code text}, whose product is a string. */
    @Configuration(proxyBeanMethods = false)
    static class UntypedTextFactory {

        @Bean
        @Lazy
        @SuppressWarnings("rawtypes")
        FactoryBean text() {
            return new FactoryBean<String>() {

                @Override
                public String getObject() {
                    return "text";
                }

                @Override
                public Class<?> getObjectType() {
                    return String.class;
                }
            };
        }
    }

    @Test
    void startsWithNoInferenceClientBeanAndNoPolicy() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void validatesAtStartupEvenWhenEveryBeanIsLazy() {
        runner.withInitializer((context) -> context.addBeanFactoryPostProcessor(
                new LazyInitializationBeanFactoryPostProcessor()))
            .run((context) -> assertThat(startupFailure(context)).hasMessageStartingWith(
                    "InferenceClient bean 'openai': inference.retry.stable-retries is not set"));
    }
}
