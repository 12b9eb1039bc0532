package dev.inference.retry.autoconfigure.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.retry.Policy;
import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * One bean's settings, resolved from the properties and compared by value.
 */
class BeanRetrySettingsTests {

    /** A complete policy at the top level, and nothing else. */
    static InferenceRetryProperties policy() {
        InferenceRetryProperties properties = new InferenceRetryProperties();
        properties.setStableRetries(1);
        properties.setStableDelay(Duration.ofMillis(100));
        properties.setMaxAttempts(3);
        properties.setMaxDelay(Duration.ofSeconds(1));
        return properties;
    }

    private static InferenceRetryProperties.Client entry(InferenceRetryProperties properties, String key) {
        return properties.getClients().computeIfAbsent(key, (name) -> new InferenceRetryProperties.Client());
    }

    @Nested
    class Resolution {

        @Test
        void takesEachFieldFromTheEntryOverTheTopLevel() {
            InferenceRetryProperties properties = policy();
            entry(properties, "openai").setMaxAttempts(5);

            BeanRetrySettings settings = BeanRetrySettings.resolve("openai", "openai", properties);

            assertThat(settings.policy()).isEqualTo(new Policy(1, Duration.ofMillis(100), 5, Duration.ofSeconds(1)));
        }

        @Test
        void sharesTheBeanNameAsCooldownKeyWithNoBudgetOrSpreadWhenNoneIsConfigured() {
            BeanRetrySettings settings = BeanRetrySettings.resolve("openai", null, policy());

            assertThat(settings.cooldownKey()).isEqualTo("openai");
            assertThat(settings.budget()).isNull();
            assertThat(settings.cooldownReleaseSpread()).isZero();
            assertThat(settings.rateLimitHeaders()).isTrue();
        }

        @Test
        void refusesACooldownKeyWithoutAStoreNamingTheEntrysProperty() {
            InferenceRetryProperties properties = policy();
            entry(properties, "openai").setCooldownKey("account");

            assertThatExceptionOfType(InvalidRetryPropertyException.class)
                .isThrownBy(() -> BeanRetrySettings.resolve("openai", "openai", properties))
                .satisfies((ex) -> assertThat(ex.property()).isEqualTo("inference.retry.clients.openai.cooldown-key"));
        }
    }

    @Nested
    class Equality {

        @Test
        void holdsForTwoResolutionsOfTheSameProperties() {
            InferenceRetryProperties properties = policy();
            properties.getBudget().setMaxTokens(10);
            properties.getBudget().setTokenRatio(new BigDecimal("0.1"));

            assertThat(BeanRetrySettings.resolve("openai", null, properties))
                .isEqualTo(BeanRetrySettings.resolve("openai", null, properties));
        }

        @Test
        void comparesBudgetRatiosByValue() {
            assertThat(new BeanRetrySettings.Budget(10, new BigDecimal("0.10")))
                .isEqualTo(new BeanRetrySettings.Budget(10, new BigDecimal("0.1")));
        }

        @Test
        void failsWhenOneSettingDiffers() {
            InferenceRetryProperties other = policy();
            other.setMaxAttempts(4);

            assertThat(BeanRetrySettings.resolve("openai", null, policy()))
                .isNotEqualTo(BeanRetrySettings.resolve("openai", null, other));
        }
    }
}
