package dev.inference.retry.autoconfigure.settings;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The snapshot of every retried bean's settings: an immutable value.
 */
class RetrySettingsTests {

    @Test
    void isNotChangedByAddingABean() {
        BeanRetrySettings openai = BeanRetrySettings.resolve("openai", null, BeanRetrySettingsTests.policy());
        RetrySettings before = RetrySettings.empty();

        RetrySettings after = before.with(openai);

        assertThat(before.beans()).isEmpty();
        assertThat(after.of("openai")).contains(openai);
        assertThat(after.without("openai")).isEqualTo(before);
    }

    @Test
    void keepsTheBeansInTheOrderTheyWereAdded() {
        RetrySettings settings = RetrySettings.empty()
            .with(BeanRetrySettings.resolve("zeta", null, BeanRetrySettingsTests.policy()))
            .with(BeanRetrySettings.resolve("alpha", null, BeanRetrySettingsTests.policy()));

        assertThat(settings.beans()).containsOnlyKeys("zeta", "alpha");
        assertThat(settings.beans().keySet()).containsExactly("zeta", "alpha");
    }
}
