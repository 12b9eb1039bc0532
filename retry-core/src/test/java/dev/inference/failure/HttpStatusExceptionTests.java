package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpStatusExceptionTests {

    @Test
    void carriesTheStatusMessageAndRetryAfter() {
        HttpStatusException ex = new HttpStatusException(429, "slow down", Duration.ofSeconds(3));
        assertThat(ex.status()).isEqualTo(429);
        assertThat(ex).hasMessage("slow down").hasNoCause();
        assertThat(ex.retryAfter()).contains(Duration.ofSeconds(3));
    }

    @Test
    void hasNoRetryAfterWhenGivenNull() {
        assertThat(new HttpStatusException(503, "unavailable", null).retryAfter()).isEmpty();
    }

    @Test
    void saysNothingOfTheRateLimitUnlessTold() {
        assertThat(new HttpStatusException(429, "slow down", Duration.ofSeconds(3)).rateLimitedFor()).isEmpty();
    }

    @Test
    void carriesWhatTheRateLimitHeadersSaid() {
        HttpStatusException ex = new HttpStatusException(500, "oops", null, Duration.ofMillis(1500));
        assertThat(ex.rateLimitedFor()).contains(Duration.ofMillis(1500));
        assertThat(ex.retryAfter()).isEmpty();
    }

    @ParameterizedTest(name = "HTTP {0}")
    @ValueSource(ints = { 100, 999 })
    void acceptsEveryThreeDigitStatus(int status) {
        assertThat(new HttpStatusException(status, "status", null).status()).isEqualTo(status);
    }

    @ParameterizedTest(name = "HTTP {0}")
    @ValueSource(ints = { 99, 1000, 0, -503 })
    void refusesAStatusThatIsNotThreeDigits(int status) {
        assertThatIllegalArgumentException().isThrownBy(() -> new HttpStatusException(status, "status", null))
            .withMessage("status must be a three-digit HTTP status code, was " + status);
    }
}
