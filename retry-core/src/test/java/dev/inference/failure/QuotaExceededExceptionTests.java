package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QuotaExceededExceptionTests {

    @Test
    void carriesTheStatusCodeAndTheProvidersMessage() {
        QuotaExceededException ex = new QuotaExceededException(429, "insufficient_quota", "Check your billing.");
        assertThat(ex.status()).isEqualTo(429);
        assertThat(ex.code()).isEqualTo("insufficient_quota");
        assertThat(ex).hasMessage("Check your billing.").hasNoCause();
    }

    @Test
    void isNoStatusFailureThatCodeHandlingA429WouldWaitFor() {
        assertThat(new QuotaExceededException(429, "insufficient_quota", "m")).isNotInstanceOf(HttpStatusException.class);
    }

    @ParameterizedTest(name = "HTTP {0}")
    @ValueSource(ints = { 100, 999 })
    void acceptsEveryThreeDigitStatus(int status) {
        assertThat(new QuotaExceededException(status, "insufficient_quota", "m").status()).isEqualTo(status);
    }

    @ParameterizedTest(name = "HTTP {0}")
    @ValueSource(ints = { 99, 1000, -429 })
    void refusesAStatusThatIsNotThreeDigits(int status) {
        assertThatIllegalArgumentException().isThrownBy(() -> new QuotaExceededException(status, "insufficient_quota", "m"))
            .withMessage("status must be a three-digit HTTP status code, was " + status);
    }

    @Test
    void refusesAMissingCodeOrMessage() {
        assertThatNullPointerException().isThrownBy(() -> new QuotaExceededException(429, null, "m"))
            .withMessage("code must not be null");
        assertThatNullPointerException().isThrownBy(() -> new QuotaExceededException(429, "insufficient_quota", null))
            .withMessage("message must not be null");
    }
}
