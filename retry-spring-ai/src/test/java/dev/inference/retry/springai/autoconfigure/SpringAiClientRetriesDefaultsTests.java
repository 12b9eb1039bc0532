package dev.inference.retry.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * The starter's defaults for the own retries of the clients of the chat and embedding models it retries:
 * set where the application left them unset, never over a value it chose, never for a model left alone.
 */
class SpringAiClientRetriesDefaultsTests {

    private static final String CHAT_MAX_RETRIES = "spring.ai.openai.chat.max-retries";

    private final StandardEnvironment environment = new StandardEnvironment();

    @Test
    void turnsTheChatModelsClientRetriesOffWhenTheApplicationLeftThemUnset() {
        postProcess();

        assertThat(this.environment.getProperty(CHAT_MAX_RETRIES)).isEqualTo("0");
        assertThat(this.environment.getPropertySources().stream().reduce((first, second) -> second).orElseThrow()
            .getName()).isEqualTo(SpringAiClientRetriesDefaults.PROPERTY_SOURCE_NAME);
    }

    @Test
    void leavesAValueTheApplicationSet() {
        TestPropertyValues.of(CHAT_MAX_RETRIES + "=2").applyTo(this.environment);

        postProcess();

        assertThat(this.environment.getProperty(CHAT_MAX_RETRIES)).isEqualTo("2");
    }

    @Test
    void leavesAValueSetAsAnEnvironmentVariable() {
        environmentVariables(Map.of("SPRING_AI_OPENAI_CHAT_MAXRETRIES", "1"));

        postProcess();

        PropertySource<?> defaults = this.environment.getPropertySources()
            .get(SpringAiClientRetriesDefaults.PROPERTY_SOURCE_NAME);
        assertThat(defaults == null || !defaults.containsProperty(CHAT_MAX_RETRIES)).isTrue();
    }

    @Test
    void turnsTheEmbeddingModelsClientRetriesOffToo() {
        postProcess();

        assertThat(this.environment.getProperty("spring.ai.openai.embedding.max-retries")).isEqualTo("0");
    }

    @Test
    void setsNothingForAnEmbeddingModelWhoseEntrySwitchesItOff() {
        TestPropertyValues.of("inference.retry.clients.openAiEmbeddingModel.enabled=false").applyTo(this.environment);

        postProcess();

        assertThat(this.environment.containsProperty("spring.ai.openai.embedding.max-retries")).isFalse();
        assertThat(this.environment.getProperty(CHAT_MAX_RETRIES)).isEqualTo("0");
    }

    @Test
    void turnsTheAnthropicModelsClientRetriesOffToo() {
        postProcess();

        assertThat(this.environment.getProperty("spring.ai.anthropic.max-retries")).isEqualTo("0");
    }

    @Test
    void leavesTheCommonSettingToTheModelsItServes() {
        TestPropertyValues.of("spring.ai.openai.max-retries=2").applyTo(this.environment);

        postProcess();

        assertThat(this.environment.getProperty("spring.ai.openai.max-retries")).isEqualTo("2");
        assertThat(this.environment.getProperty(CHAT_MAX_RETRIES)).isEqualTo("0");
    }

    @Test
    void setsNothingForAChatModelWhoseEntrySwitchesItOff() {
        environmentVariables(Map.of("INFERENCE_RETRY_CLIENTS_OPENAICHATMODEL_ENABLED", "false"));

        postProcess();

        assertThat(this.environment.containsProperty(CHAT_MAX_RETRIES)).isFalse();
    }

    @Test
    void setsNothingWhenSpringAiModelsAreNotRetried() {
        TestPropertyValues.of("inference.retry.spring-ai.enabled=false").applyTo(this.environment);

        postProcess();

        assertThat(this.environment.containsProperty(CHAT_MAX_RETRIES)).isFalse();
    }

    @Test
    void setsNothingWhenNothingIsRetried() {
        TestPropertyValues.of("inference.retry.enabled=false").applyTo(this.environment);

        postProcess();

        assertThat(this.environment.containsProperty(CHAT_MAX_RETRIES)).isFalse();
    }

    @Test
    void setsNothingWithoutTheModelsAutoConfiguration() {
        SpringApplication application = new SpringApplication();
        application.setResourceLoader(new DefaultResourceLoader(
                new FilteredClassLoader("org.springframework.ai.model.openai.autoconfigure")));

        new SpringAiClientRetriesDefaults().postProcessEnvironment(this.environment, application);

        assertThat(this.environment.containsProperty(CHAT_MAX_RETRIES)).isFalse();
    }

    /** Stands in for the process's environment variables, which Spring Boot maps to properties. */
    private void environmentVariables(Map<String, Object> variables) {
        this.environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        variables));
    }

    private void postProcess() {
        new SpringAiClientRetriesDefaults().postProcessEnvironment(this.environment, new SpringApplication());
    }
}
