package dev.inference.retry.autoconfigure.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

import dev.inference.client.InferenceClient;
import dev.inference.retry.ConfigException;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.Script;
import dev.inference.retry.autoconfigure.ScriptedClient;
import dev.inference.retry.autoconfigure.failure.InferenceRetryFailureAnalyzer;
import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

public class InferenceRetryFailureAnalyzerTests {

    /** Starts the one-client application with these arguments, which fail its startup with a report. */
    private static void failsToStart(String... args) {
        SpringApplication application = new SpringApplication(OneClientApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run(args));
    }

    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    class Report {

        @Test
        void describesAnInvalidValueWithItsOriginAndSaysWhatToChange(CapturedOutput output) {
            failsToStart("--inference.retry.stable-retries=1",
                    "--inference.retry.stable-delay=200ms", "--inference.retry.max-attempts=5",
                    "--inference.retry.max-delay=5s", "--inference.retry.clients.openai.max-attempts=0");
            assertThat(output).contains("""
                    ***************************
                    APPLICATION FAILED TO START
                    ***************************

                    Description:

                    Invalid retry configuration for InferenceClient bean 'openai':

                        Property: inference.retry.clients.openai.max-attempts
                        Value: 0
                        Origin: "inference.retry.clients.openai.max-attempts" from property source "commandLineArgs"
                        Reason: must be at least 1

                    Action:

                    Change inference.retry.clients.openai.max-attempts: it must be at least 1.
                    """);
        }

        @Test
        void describesAMissingFieldAndNamesBothPropertiesThatCouldSetIt(CapturedOutput output) {
            failsToStart("--inference.retry.stable-retries=1",
                    "--inference.retry.stable-delay=200ms", "--inference.retry.max-attempts=5");
            assertThat(output).contains("""
                    Description:

                    Invalid retry configuration for InferenceClient bean 'openai':

                        Property: inference.retry.max-delay
                        Reason: must be set, or inference.retry.clients.openai.max-delay instead; there is no default

                    Action:

                    Set inference.retry.max-delay (for every retried bean) or inference.retry.clients.openai.max-delay (for bean 'openai' only).
                    """);
        }
    }

    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    class EveryMissingField {

        @Test
        void isDescribedInOneReportWithWhatToSetForEach(CapturedOutput output) {
            failsToStart("--inference.retry.stable-retries=1");
            assertThat(output).contains("""
                    Description:

                    Invalid retry configuration for InferenceClient bean 'openai':

                        Property: inference.retry.stable-delay
                        Reason: must be set, or inference.retry.clients.openai.stable-delay instead; there is no default

                        Property: inference.retry.max-attempts
                        Reason: must be set, or inference.retry.clients.openai.max-attempts instead; there is no default

                        Property: inference.retry.max-delay
                        Reason: must be set, or inference.retry.clients.openai.max-delay instead; there is no default

                    Action:

                    Set inference.retry.stable-delay (for every retried bean) or inference.retry.clients.openai.stable-delay (for bean 'openai' only).
                    Set inference.retry.max-attempts (for every retried bean) or inference.retry.clients.openai.max-attempts (for bean 'openai' only).
                    Set inference.retry.max-delay (for every retried bean) or inference.retry.clients.openai.max-delay (for bean 'openai' only).
                    """);
        }

        @Test
        void areThrownAsTheFirstWithTheOthersSuppressed() {
            InferenceRetryProperties properties = new InferenceRetryProperties();
            properties.setStableRetries(1);

            assertThatException().isThrownBy(() -> ClientPolicyResolver.resolve("openai", null, properties))
                .isInstanceOf(InvalidRetryPropertyException.class)
                .satisfies((thrown) -> {
                    assertThat(((ConfigException) thrown).field()).isEqualTo("inference.retry.stable-delay");
                    assertThat(thrown.getSuppressed()).extracting((suppressed) -> ((ConfigException) suppressed).field())
                        .containsExactly("inference.retry.max-attempts", "inference.retry.max-delay");
                });
        }
    }

    @Nested
    class EveryMissingFieldOfAChatModel {

        @Test
        void staysTogetherWhenTheBeanIsNamedAsWhatItIs() {
            InvalidRetryPropertyException first = InvalidRetryPropertyException.missing("chat",
                    "inference.retry.stable-delay", "inference.retry.clients.chat.stable-delay");
            first.addSuppressed(InvalidRetryPropertyException.missing("chat", "inference.retry.max-delay",
                    "inference.retry.clients.chat.max-delay"));

            InvalidRetryPropertyException named = first.ofKind("ChatModel");

            assertThat(named.getSuppressed()).singleElement().isInstanceOfSatisfying(InvalidRetryPropertyException.class,
                    (other) -> {
                        assertThat(other.kind()).isEqualTo("ChatModel");
                        assertThat(other.field()).isEqualTo("inference.retry.max-delay");
                    });
        }
    }

    @Nested
    class Analysis {

        private final InferenceRetryFailureAnalyzer analyzer = new InferenceRetryFailureAnalyzer(null);

        @Test
        void describesAClientEntryThatNamesNoBean() {
            FailureAnalysis analysis = this.analyzer.analyze(new IllegalStateException("wrapper",
                    InvalidRetryPropertyException.unknownClient("opneai", "inference.retry.clients.opneai",
                            List.of("openai", "local"), "InferenceClient")));
            assertThat(analysis.getDescription()).isEqualTo("""
                    Invalid retry configuration for InferenceClient bean 'opneai':

                        Property: inference.retry.clients.opneai
                        Reason: must be the name of an InferenceClient bean (one of [openai, local])""");
            assertThat(analysis.getAction()).isEqualTo("Rename inference.retry.clients.opneai after the "
                    + "InferenceClient bean it is meant for (one of [openai, local]), or remove it.");
        }

        @Test
        void describesAPolicyBuiltInCodeByItsField() {
            FailureAnalysis analysis = this.analyzer.analyze(new ConfigException("maxAttempts", 0, "must be at least 1"));
            assertThat(analysis.getDescription()).isEqualTo("Invalid retry policy: maxAttempts = 0 is invalid: must be at least 1");
            assertThat(analysis.getAction()).isEqualTo("Change maxAttempts: it must be at least 1.");
        }

        @Test
        void namesWhereAValueWasSet() {
            StandardEnvironment environment = new StandardEnvironment();
            environment.getPropertySources()
                .addFirst(new MapPropertySource("test", Map.of("inference.retry.max-attempts", "0")));
            FailureAnalysis analysis = new InferenceRetryFailureAnalyzer(environment).analyze(
                    InvalidRetryPropertyException.invalid("openai", "inference.retry.max-attempts", 0, "must be at least 1"));
            assertThat(analysis.getDescription()).contains(
                    "\n    Origin: \"inference.retry.max-attempts\" from property source \"test\"\n");
        }

        @Test
        void describesAStoreThatCannotBeMadeByItsPropertyAndNoBean() {
            FailureAnalysis analysis = this.analyzer.analyze(new RetryStoreUnavailableException("redis",
                    "needs Spring Data Redis, which is not on the class path", "Add Spring Data Redis."));
            assertThat(analysis.getDescription()).isEqualTo("The retry cool-down store cannot be made:\n\n"
                    + "    Property: inference.retry.cooldown.store\n    Value: redis\n"
                    + "    Reason: needs Spring Data Redis, which is not on the class path");
            assertThat(analysis.getAction()).isEqualTo("Add Spring Data Redis.");
        }

        @Test
        void leavesOtherFailuresToOtherAnalyzers() {
            assertThat(this.analyzer.analyze(new IllegalStateException("unrelated"))).isNull();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(InferenceRetryAutoConfiguration.class)
    public static class OneClientApplication {

        @Bean
        InferenceClient openai() {
            return new ScriptedClient(new Script());
        }
    }
}
