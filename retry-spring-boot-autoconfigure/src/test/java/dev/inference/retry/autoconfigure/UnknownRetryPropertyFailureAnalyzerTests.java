package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.autoconfigure.failure.UnknownRetryPropertyFailureAnalyzer;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The startup report for keys under {@code inference.retry} that no property binds, as Spring Boot
 * chooses it among all registered failure analyzers.
 */
class UnknownRetryPropertyFailureAnalyzerTests {

    private static final String ORIGIN = "from property source \"test\"";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
        .withUserConfiguration(TestClients.TwoClients.class)
        .withPropertyValues("inference.retry.stable-retries=1", "inference.retry.stable-delay=100ms",
                "inference.retry.max-attempts=3", "inference.retry.max-delay=1s");

    private void analyze(String[] properties, Consumer<FailureAnalysis> analysis) {
        AtomicReference<ConfigurableEnvironment> environment = new AtomicReference<>();
        this.runner.withPropertyValues(properties)
            .withInitializer((context) -> environment.set(context.getEnvironment()))
            .run((context) -> {
                assertThat(context).hasFailed();
                analysis.accept(HostileConfigurationTests.analyze(context.getStartupFailure(), environment.get()));
            });
    }

    @Test
    void namesAMisspeltClientSettingAndTheSettingsThatExist() {
        analyze(new String[] { "inference.retry.clients.openai.max-atempts=3" }, (analysis) -> {
            assertThat(analysis.getDescription()).isEqualTo("""
                    Unknown or blank retry configuration:

                        Property: inference.retry.clients.openai.max-atempts
                        Origin: "inference.retry.clients.openai.max-atempts" %s
                        Reason: is not a setting of a client: inference.retry.clients.<bean-name> takes enabled, \
                    stable-retries, stable-delay, max-attempts, max-delay, budget.enabled, budget.max-tokens, \
                    budget.token-ratio and cooldown-key""".formatted(ORIGIN));
            assertThat(analysis.getAction()).isEqualTo("Correct or remove inference.retry.clients.openai.max-atempts.");
        });
    }

    @Test
    void namesAClientsKeyAsItWasWrittenSoThatItCanBeFound() {
        analyze(new String[] { "inference.retry.clients.myClient.max-atempts=3" }, (analysis) -> {
            assertThat(analysis.getDescription()).contains("Property: inference.retry.clients.myClient.max-atempts\n");
            assertThat(analysis.getAction()).isEqualTo("Correct or remove inference.retry.clients.myClient.max-atempts.");
        });
    }

    @Test
    void namesAnUnknownTopLevelKeyAndThePropertiesThatExist() {
        analyze(new String[] { "inference.retry.timeout=5s" }, (analysis) -> {
            assertThat(analysis.getDescription()).isEqualTo("""
                    Unknown or blank retry configuration:

                        Property: inference.retry.timeout
                        Origin: "inference.retry.timeout" %s
                        Reason: is not a retry property: inference.retry takes enabled, stable-retries, stable-delay, \
                    max-attempts, max-delay, budget.max-tokens, budget.token-ratio, cooldown.store, \
                    cooldown.namespace, observations.enabled, spring-ai.enabled, clients.<bean-name> and \
                    fallbacks.<chain>""".formatted(ORIGIN));
            assertThat(analysis.getAction()).isEqualTo("Correct or remove inference.retry.timeout.");
        });
    }

    @Test
    void namesAnUnknownKeyOfAFallbackChainAndTheSettingsThatExist() {
        analyze(new String[] { "inference.retry.fallbacks.chat.members=a, b", "inference.retry.fallbacks.chat.memebrs=a" },
                (analysis) -> assertThat(analysis.getDescription()).contains("""
                        Property: inference.retry.fallbacks.chat.memebrs
                        Origin: "inference.retry.fallbacks.chat.memebrs" %s
                        Reason: is not a setting of a fallback chain: inference.retry.fallbacks.<chain> takes members, \
                    primary, skip-after, skip-for and models.<member>""".formatted(ORIGIN)));
    }

    @Test
    void saysABlankPropertyNeedsAValue() {
        analyze(new String[] { "inference.retry.clients.local.stable-delay=" }, (analysis) -> {
            assertThat(analysis.getDescription()).isEqualTo("""
                    Unknown or blank retry configuration:

                        Property: inference.retry.clients.local.stable-delay
                        Origin: "inference.retry.clients.local.stable-delay" %s
                        Reason: is blank: a retry property takes a value, or is left out""".formatted(ORIGIN));
            assertThat(analysis.getAction()).isEqualTo("Set inference.retry.clients.local.stable-delay to a value, "
                    + "or remove it.");
        });
    }

    @Test
    void listsEveryKeyInNameOrder() {
        analyze(new String[] { "inference.retry.max-atempts=3", "inference.retry.clients.local.stable-delay=" },
                (analysis) -> assertThat(analysis.getAction()).isEqualTo("""
                        Set inference.retry.clients.local.stable-delay to a value, or remove it.
                        Correct or remove inference.retry.max-atempts."""));
    }

    @Test
    void neverPrintsTheValueOfAnUnknownKey() {
        analyze(new String[] { "inference.retry.clients.openai.api-key=" + HostileConfigurationTests.SECRET },
                (analysis) -> {
                    assertThat(analysis.getDescription()).contains("Property: inference.retry.clients.openai.api-key\n")
                        .doesNotContain(HostileConfigurationTests.SECRET);
                    assertThat(analysis.getAction()).doesNotContain(HostileConfigurationTests.SECRET);
                });
    }

    @Test
    void leavesKeysOutsideTheRetryPropertiesToSpringBoot() {
        ConfigurationProperty other = new ConfigurationProperty(ConfigurationPropertyName.of("server.prot"), "8080",
                null);
        assertThat(new UnknownRetryPropertyFailureAnalyzer()
            .analyze(new UnboundConfigurationPropertiesException(Set.of(other)))).isNull();
    }
}
