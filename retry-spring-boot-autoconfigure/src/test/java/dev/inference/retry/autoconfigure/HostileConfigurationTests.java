package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import dev.inference.client.Durations;
import dev.inference.retry.ConfigException;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import dev.inference.retry.autoconfigure.settings.InferenceRetryFailureAnalyzerTests;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.core.io.support.SpringFactoriesLoader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Hostile configuration: property sets that are wrong in every way a person or a deployment
 * pipeline gets them wrong. Each must stop the application with a typed failure (a
 * {@link ConfigException}, or Spring Boot's {@link BindException} where the value cannot even be
 * bound) whose message, and whose "APPLICATION FAILED TO START" report, names the full property to
 * fix. None may start on a silent default.
 *
 * <p>Every case also carries an unrelated secret, which must appear in none of it.
 */
class HostileConfigurationTests {

    /** An unrelated credential in the same environment; it must never be echoed. */
    static final String SECRET = "sk-secret-123";

    private static final String SECRET_PROPERTY = "spring.ai.openai.api-key=" + SECRET;

    private static final List<String> FIELDS = List.of("stable-retries", "stable-delay", "max-attempts", "max-delay");

    /** A complete, valid policy, field by field, which each case then breaks. */
    private static final Map<String, String> POLICY = Map.of("stable-retries", "1", "stable-delay", "100ms",
            "max-attempts", "3", "max-delay", "1s");

    /** The rule broken by a delay that a count of nanoseconds cannot hold. */
    private static final String LONGEST_DELAY_RULE = "must be at most PT2562047H47M16.854775807S "
            + "(the longest wait counted in nanoseconds)";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
        .withUserConfiguration(TestClients.TwoClients.class)
        .withPropertyValues(SECRET_PROPERTY);

    @ParameterizedTest
    @MethodSource("hostileConfigurations")
    void failsStartupNamingTheFullPropertyToFix(List<String> properties, Class<? extends Exception> type,
            String message, String property) {
        AtomicReference<ConfigurableEnvironment> environment = new AtomicReference<>();
        this.runner.withPropertyValues(properties.toArray(String[]::new))
            .withInitializer((context) -> environment.set(context.getEnvironment()))
            .run((context) -> {
                assertThat(context).hasFailed();
                Throwable failure = context.getStartupFailure();
                assertThat(RetriedClientsTests.causeOfType(failure, type)).hasMessage(message);
                FailureAnalysis analysis = analyze(failure, environment.get());
                assertThat(analysis.getDescription()).satisfiesAnyOf(
                        (description) -> assertThat(description).contains("    Property: " + property + "\n"),
                        (description) -> assertThat(description)
                            .startsWith("Failed to bind properties under '" + property + "' to "));
                assertThat(causeChainMessages(failure)).doesNotContain(SECRET);
                assertThat(analysis.getDescription()).doesNotContain(SECRET);
                assertThat(analysis.getAction()).doesNotContain(SECRET);
            });
    }

    static Stream<Arguments> hostileConfigurations() {
        List<Arguments> cases = new ArrayList<>();
        for (String field : FIELDS) {
            cases.add(argumentSet("missing: " + field, policy().without("inference.retry." + field).list(),
                    ConfigException.class, missing("openai", field), "inference.retry." + field));
        }
        for (String field : FIELDS) {
            // Nothing at the top level; 'local' is complete, the override of 'openai' leaves one field unset.
            PropertySet properties = new PropertySet();
            for (String other : FIELDS) {
                properties.with("inference.retry.clients.local." + other, POLICY.get(other));
                if (!other.equals(field)) {
                    properties.with("inference.retry.clients.openai." + other, POLICY.get(other));
                }
            }
            cases.add(argumentSet("missing in a client's override: " + field, properties.list(), ConfigException.class,
                    missing("openai", field), "inference.retry." + field));
        }
        cases.add(invalid("zero", "inference.retry.max-attempts", "0", "0", "must be at least 1"));
        cases.add(invalid("zero", "inference.retry.stable-delay", "0ms", "PT0S", "must be a positive duration"));
        cases.add(invalid("zero", "inference.retry.max-delay", "0s", "PT0S",
                "must be at least inference.retry.stable-delay (PT0.1S)"));
        cases.add(invalidFor("local", "zero in a client's override", "inference.retry.clients.local.stable-delay", "0s",
                "PT0S", "must be a positive duration"));
        cases.add(invalid("negative", "inference.retry.stable-retries", "-1", "-1", "must not be negative"));
        cases.add(invalid("negative", "inference.retry.stable-delay", "-1s", "PT-1S", "must be a positive duration"));
        cases.add(invalid("negative", "inference.retry.max-attempts", "-1", "-1", "must be at least 1"));
        cases.add(invalid("negative", "inference.retry.max-delay", "-1s", "PT-1S",
                "must be at least inference.retry.stable-delay (PT0.1S)"));
        cases.add(invalid("the most negative duration", "inference.retry.stable-delay", "-9223372036854775808s",
                "PT-2562047788015215H-30M-8S", "must be a positive duration"));
        cases.add(unbindable("not a number", "inference.retry.max-attempts", "three", "java.lang.Integer"));
        cases.add(unbindable("not a number", "inference.retry.stable-retries", "one", "java.lang.Integer"));
        cases.add(unbindable("not a number", "inference.retry.stable-retries", "1.5", "java.lang.Integer"));
        cases.add(unbindable("not a duration", "inference.retry.stable-delay", "soon", "java.time.Duration"));
        cases.add(unbindable("not a duration", "inference.retry.max-delay", "5 minutes", "java.time.Duration"));
        cases.add(unbindable("not a duration in a client's override", "inference.retry.clients.local.max-delay",
                "forever", "java.time.Duration"));
        cases.add(invalid("overflowing duration", "inference.retry.stable-delay", "99999999999d", "PT2399999999976H",
                LONGEST_DELAY_RULE));
        cases.add(invalid("overflowing duration", "inference.retry.max-delay", "9223372036854775807s",
                "PT2562047788015215H30M7S", LONGEST_DELAY_RULE));
        cases.add(unbindable("overflowing duration", "inference.retry.max-delay", "PT2562047788015216H",
                "java.time.Duration"));
        cases.add(unbindable("overflowing duration", "inference.retry.stable-delay", "99999999999999999999d",
                "java.time.Duration"));
        cases.add(unbindable("overflowing int", "inference.retry.max-attempts", "2147483648", "java.lang.Integer"));
        cases.add(unbindable("overflowing int", "inference.retry.stable-retries", "-2147483649", "java.lang.Integer"));
        cases.add(invalid("max-delay below stable-delay", "inference.retry.max-delay", "50ms", "PT0.05S",
                "must be at least inference.retry.stable-delay (PT0.1S)"));
        cases.add(invalid("stable-retries equal to max-attempts", "inference.retry.stable-retries", "3", "3",
                "must be less than inference.retry.max-attempts (3)"));
        cases.add(invalid("stable-retries above max-attempts", "inference.retry.stable-retries", "4", "4",
                "must be less than inference.retry.max-attempts (3)"));
        cases.add(argumentSet("an override of max-attempts down to the global stable-retries",
                policy().with("inference.retry.clients.local.max-attempts", "1").list(), ConfigException.class,
                "InferenceClient bean 'local': inference.retry.stable-retries = 1 is invalid: must be less than "
                        + "inference.retry.clients.local.max-attempts (1)",
                "inference.retry.stable-retries"));
        cases.add(argumentSet("an override of stable-retries up to the global max-attempts",
                policy().with("inference.retry.clients.openai.stable-retries", "5").list(), ConfigException.class,
                "InferenceClient bean 'openai': inference.retry.clients.openai.stable-retries = 5 is invalid: "
                        + "must be less than inference.retry.max-attempts (3)",
                "inference.retry.clients.openai.stable-retries"));
        cases.add(argumentSet("an override of stable-delay above the global max-delay",
                policy().with("inference.retry.clients.openai.stable-delay", "2s").list(), ConfigException.class,
                "InferenceClient bean 'openai': inference.retry.max-delay = PT1S is invalid: must be at least "
                        + "inference.retry.clients.openai.stable-delay (PT2S)",
                "inference.retry.max-delay"));
        cases.add(argumentSet("an override of max-delay below the global stable-delay",
                policy().with("inference.retry.clients.openai.max-delay", "50ms").list(), ConfigException.class,
                "InferenceClient bean 'openai': inference.retry.clients.openai.max-delay = PT0.05S is invalid: "
                        + "must be at least inference.retry.stable-delay (PT0.1S)",
                "inference.retry.clients.openai.max-delay"));
        cases.add(unknownClient("a misspelt client name", "opneai", "max-attempts=2"));
        cases.add(unknownClient("a client switched off under a misspelt name", "opneai", "enabled=false"));
        cases.add(unbound("a misspelt field under a client", "inference.retry.clients.openai.max-atempts", "3"));
        cases.add(unbound("a field that does not exist under a client", "inference.retry.clients.openai.timeout",
                "5s"));
        cases.add(unbound("a misspelt field at the top level", "inference.retry.max-atempts", "3"));
        cases.add(unbindable("not a boolean", "inference.retry.enabled", "maybe", "java.lang.Boolean"));
        cases.add(unbindable("not a boolean in a client's override", "inference.retry.clients.openai.enabled",
                "maybe", "boolean"));
        cases.add(unbindable("a value where a client's settings belong", "inference.retry.clients.openai", "5",
                InferenceRetryProperties.Client.class.getName()));
        // A blank value binds to nothing, and so is left unbound: never "not set", never the top-level value.
        cases.add(unbound("blank", "inference.retry.stable-delay", ""));
        cases.add(unbound("blank", "inference.retry.max-attempts", ""));
        cases.add(unbound("blank in a client's override", "inference.retry.clients.openai.max-delay", ""));
        for (String timeout : List.of("attempt-timeout", "first-token-timeout", "stream-idle-timeout")) {
            for (String prefix : List.of("inference.retry.", "inference.retry.clients.openai.")) {
                cases.add(invalid("a zero timeout", prefix + timeout, "0s", "PT0S", TIMEOUT_RULE));
                cases.add(invalid("a negative timeout", prefix + timeout, "-5s", "PT-5S", TIMEOUT_RULE));
                cases.add(unbindable("not a duration", prefix + timeout, "soon", "java.time.Duration"));
            }
        }
        return cases.stream();
    }

    /** What the startup report says of a timeout that is not positive. */
    private static final String TIMEOUT_RULE = "must be a positive duration, or left unset to turn this timeout off";

    private static String missing(String beanName, String field) {
        return "InferenceClient bean '" + beanName + "': inference.retry." + field + " is not set: must be set, or "
                + "inference.retry.clients." + beanName + "." + field + " instead; there is no default";
    }

    /** A value the policy refuses, set for every bean: the first bean, 'openai', is reported. */
    private static Arguments invalid(String kind, String property, String value, String bound, String rule) {
        return invalidFor("openai", kind, property, value, bound, rule);
    }

    private static Arguments invalidFor(String beanName, String kind, String property, String value, String bound,
            String rule) {
        return argumentSet(kind + ": " + property + "=" + value, policy().with(property, value).list(),
                ConfigException.class,
                "InferenceClient bean '" + beanName + "': " + property + " = " + bound + " is invalid: " + rule,
                property);
    }

    /** A value that cannot be converted to the property's type. */
    private static Arguments unbindable(String kind, String property, String value, String type) {
        return argumentSet(kind + ": " + property + "=" + value, policy().with(property, value).list(),
                BindException.class, "Failed to bind properties under '" + property + "' to " + type, property);
    }

    /** A key under {@code inference.retry} that no property of the starter binds. */
    private static Arguments unbound(String kind, String property, String value) {
        return argumentSet(kind + ": " + property + "=" + value, policy().with(property, value).list(),
                BindException.class, "Failed to bind properties under 'inference.retry' to "
                        + InferenceRetryProperties.class.getName(),
                property);
    }

    private static Arguments unknownClient(String kind, String name, String setting) {
        String property = "inference.retry.clients." + name;
        return argumentSet(kind + ": " + property + "." + setting,
                policy().with(property + "." + setting.substring(0, setting.indexOf('=')),
                        setting.substring(setting.indexOf('=') + 1)).list(),
                ConfigException.class, property + " names no InferenceClient bean: must be the name of an "
                        + "InferenceClient bean (one of [openai, local])",
                property);
    }

    private static PropertySet policy() {
        PropertySet properties = new PropertySet();
        for (String field : FIELDS) {
            properties.with("inference.retry." + field, POLICY.get(field));
        }
        return properties;
    }

    /**
     * Analyses a startup failure as Spring Boot does before it prints "APPLICATION FAILED TO START":
     * the registered failure analyzers in order, the first analysis wins.
     */
    static FailureAnalysis analyze(Throwable failure, Environment environment) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
            .load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, environment),
                    FailureHandler.logging(LogFactory.getLog(HostileConfigurationTests.class)));
        AnnotationAwareOrderComparator.sort(analyzers);
        return analyzers.stream()
            .map((analyzer) -> analyzer.analyze(failure))
            .filter(Objects::nonNull)
            .findFirst()
            .orElseThrow(() -> new AssertionError("No failure analyzer describes " + failure, failure));
    }

    private static String causeChainMessages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            messages.append(cause).append('\n');
        }
        return messages.toString();
    }

    @Nested
    class CompleteConfiguration {

        @Test
        void startsWithExactlyTheConfiguredPolicyOnEveryWrappedClient() {
            HostileConfigurationTests.this.runner
                .withPropertyValues("inference.retry.stable-retries=2", "inference.retry.stable-delay=150ms",
                        "inference.retry.max-attempts=7", "inference.retry.max-delay=3s",
                        "inference.retry.clients.local.max-attempts=4", "inference.retry.clients.local.max-delay=900ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("openai", RetryClient.class).policy())
                        .isEqualTo(new Policy(2, Duration.ofMillis(150), 7, Duration.ofSeconds(3)));
                    assertThat(context.getBean("local", RetryClient.class).policy())
                        .isEqualTo(new Policy(2, Duration.ofMillis(150), 4, Duration.ofMillis(900)));
                });
        }

        @Test
        void bindsAClientOverrideFromAnEnvironmentVariableDespiteRefusingUnknownKeys() {
            HostileConfigurationTests.this.runner.withPropertyValues(policy().list().toArray(String[]::new))
                .withInitializer((context) -> context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new SystemEnvironmentPropertySource(
                            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of("INFERENCE_RETRY_CLIENTS_LOCAL_MAXATTEMPTS", "2"))))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("local", RetryClient.class).policy().maxAttempts()).isEqualTo(2);
                });
        }

        @Test
        void startsWithTheEdgeValuesThatAreValid() {
            HostileConfigurationTests.this.runner
                .withPropertyValues("inference.retry.stable-retries=0", "inference.retry.stable-delay=1ns",
                        "inference.retry.max-attempts=1", "inference.retry.max-delay=1ns",
                        "inference.retry.clients.local.max-attempts=2147483647",
                        "inference.retry.clients.local.max-delay=PT2562047H47M16.854775807S")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("openai", RetryClient.class).policy())
                        .isEqualTo(new Policy(0, Duration.ofNanos(1), 1, Duration.ofNanos(1)));
                    assertThat(context.getBean("local", RetryClient.class).policy()).isEqualTo(new Policy(0,
                            Duration.ofNanos(1), Integer.MAX_VALUE, Durations.LONGEST_WAIT));
                });
        }
    }

    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    class Secrets {

        @ParameterizedTest(name = "{0}")
        @CsvSource({ "inference.retry.clients.openai.max-attempts=0, inference.retry.clients.openai.max-attempts",
                "inference.retry.clients.openai.max-attempts=three, inference.retry.clients.openai.max-attempts",
                "inference.retry.clients.opneai.enabled=false, inference.retry.clients.opneai",
                "inference.retry.clients.openai.max-atempts=3, inference.retry.clients.openai.max-atempts" })
        void neverPrintsAnUnrelatedSecretInTheStartupReport(String broken, String property, CapturedOutput output) {
            SpringApplication application = new SpringApplication(
                    InferenceRetryFailureAnalyzerTests.OneClientApplication.class);
            application.setWebApplicationType(WebApplicationType.NONE);
            assertThatException().isThrownBy(() -> application.run("--" + SECRET_PROPERTY,
                    "--inference.retry.stable-retries=1", "--inference.retry.stable-delay=200ms",
                    "--inference.retry.max-attempts=5", "--inference.retry.max-delay=5s", "--" + broken));
            assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("    Property: " + property + "\n")
                .doesNotContain(SECRET);
        }

        @Test
        void neverServesAnUnrelatedSecretAtTheEndpoint() {
            HostileConfigurationTests.this.runner
                .withConfiguration(AutoConfigurations.of(InferenceRetryEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry")
                .withPropertyValues(policy().list().toArray(String[]::new))
                .run((context) -> {
                    InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
                    String json = JsonMapper.builder().build().writeValueAsString(endpoint.clients());
                    assertThat(json).contains("\"openai\":{\"name\":\"openai\",\"policy\":{\"stableRetries\":1")
                        .doesNotContain(SECRET);
                    assertThat(JsonMapper.builder().build().writeValueAsString(endpoint.client("openai")))
                        .doesNotContain(SECRET);
                });
        }
    }

    /** Property values in the order they were set; setting a property again replaces its value. */
    private static final class PropertySet {

        private final Map<String, String> values = new LinkedHashMap<>();

        PropertySet with(String property, String value) {
            this.values.put(property, value);
            return this;
        }

        PropertySet without(String property) {
            this.values.remove(property);
            return this;
        }

        List<String> list() {
            return this.values.entrySet().stream().map((entry) -> entry.getKey() + "=" + entry.getValue()).toList();
        }
    }
}
