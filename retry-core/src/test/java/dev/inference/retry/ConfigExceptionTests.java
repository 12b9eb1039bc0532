package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigExceptionTests {

    @Test
    void namesTheFieldTheValueAndTheRule() {
        ConfigException ex = new ConfigException("inference.retry.max-attempts", 0, "must be at least 1");
        assertThat(ex).hasMessage("inference.retry.max-attempts = 0 is invalid: must be at least 1");
        assertThat(ex.field()).isEqualTo("inference.retry.max-attempts");
        assertThat(ex.value()).contains(0);
        assertThat(ex.rule()).isEqualTo("must be at least 1");
    }

    @Test
    void saysAMissingValueIsNotSet() {
        ConfigException ex = new ConfigException("inference.retry.stable-delay", null, "must be a positive duration");
        assertThat(ex).hasMessage("inference.retry.stable-delay is not set: must be a positive duration");
        assertThat(ex.value()).isEmpty();
    }

    @Test
    void keepsACustomMessageAndItsParts() {
        ConfigException ex = new ConfigException("Bean 'chat': inference.retry.clients.chat.max-delay = PT0S is invalid",
                "inference.retry.clients.chat.max-delay", Duration.ZERO, "must be at least stable-delay");
        assertThat(ex).hasMessage("Bean 'chat': inference.retry.clients.chat.max-delay = PT0S is invalid");
        assertThat(ex.field()).isEqualTo("inference.retry.clients.chat.max-delay");
        assertThat(ex.value()).contains(Duration.ZERO);
        assertThat(ex.rule()).isEqualTo("must be at least stable-delay");
    }

    @Test
    void refusesANullField() {
        assertThatNullPointerException().isThrownBy(() -> new ConfigException("message", null, 1, "rule"))
            .withMessage("field must not be null");
    }

    @Test
    void refusesANullRule() {
        assertThatNullPointerException().isThrownBy(() -> new ConfigException("message", "field", 1, null))
            .withMessage("rule must not be null");
    }
}
