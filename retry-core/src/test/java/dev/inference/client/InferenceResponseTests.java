package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InferenceResponseTests {

    @Test
    void startsWithZeroAttempts() {
        InferenceResponse response = InferenceResponse.of("Hello");
        assertThat(response.output()).isEqualTo("Hello");
        assertThat(response.attempts()).isZero();
    }

    @Test
    void stampsAttemptsOnACopy() {
        InferenceResponse response = InferenceResponse.of("Hello");
        InferenceResponse stamped = response.withAttempts(3);
        assertThat(stamped.attempts()).isEqualTo(3);
        assertThat(stamped.output()).isEqualTo("Hello");
        assertThat(response.attempts()).isZero();
    }

    @Test
    void acceptsZeroAttempts() {
        assertThat(InferenceResponse.of("Hello").withAttempts(3).withAttempts(0).attempts()).isZero();
    }

    @Test
    void refusesNegativeAttempts() {
        assertThatIllegalArgumentException().isThrownBy(() -> InferenceResponse.of("Hello").withAttempts(-1))
            .withMessage("attempts must not be negative, was -1");
    }

    @Test
    void refusesANullOutput() {
        assertThatNullPointerException().isThrownBy(() -> InferenceResponse.of(null))
            .withMessage("output must not be null");
    }

    @Test
    void equalsAResponseWithTheSameOutputAndAttempts() {
        assertThat(InferenceResponse.of("Hello").withAttempts(2)).isEqualTo(InferenceResponse.of("Hello").withAttempts(2))
            .hasSameHashCodeAs(InferenceResponse.of("Hello").withAttempts(2))
            .isNotEqualTo(InferenceResponse.of("Hello").withAttempts(1))
            .isNotEqualTo(InferenceResponse.of("Bye").withAttempts(2));
    }

    /**
     * Neighbouring outputs ("Hello", "Hellp") and attempts hash apart, in either direction: a hash
     * code that ignored a field, or mixed them so that one offsets the other, would collide here.
     */
    @Test
    void hashesResponsesThatDifferInOutputOrAttemptsApart() {
        assertThat(List.of(InferenceResponse.of("Hello").withAttempts(1), InferenceResponse.of("Hello").withAttempts(2),
                InferenceResponse.of("Hellp").withAttempts(1), InferenceResponse.of("Hellp").withAttempts(32)))
            .extracting(InferenceResponse::hashCode)
            .doesNotHaveDuplicates();
    }

    @Nested
    class RateLimited {

        @Test
        void saysNothingOfTheRateLimitUnlessTold() {
            assertThat(InferenceResponse.of("Hello").rateLimitedFor()).isEmpty();
        }

        @Test
        void carriesTheRateLimitThroughTheAttemptsStamp() {
            InferenceResponse response = InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(2))
                .withAttempts(3);
            assertThat(response.rateLimitedFor()).contains(Duration.ofSeconds(2));
            assertThat(response.output()).isEqualTo("Hello");
            assertThat(response.attempts()).isEqualTo(3);
        }

        @Test
        void equalsOnlyAResponseRateLimitedAlike() {
            InferenceResponse limited = InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(2));
            assertThat(limited).isEqualTo(InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(2)))
                .hasSameHashCodeAs(InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(2)))
                .isNotEqualTo(InferenceResponse.of("Hello"))
                .isNotEqualTo(InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(3)));
            assertThat(limited.hashCode()).isNotEqualTo(InferenceResponse.of("Hello").hashCode());
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "PT0S", "PT-0.000000001S" })
        void refusesARateLimitThatIsNotPositive(String duration) {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> InferenceResponse.of("Hello").withRateLimitedFor(Duration.parse(duration)))
                .withMessage("rateLimitedFor must be positive, was " + Duration.parse(duration));
        }

        @Test
        void refusesANullRateLimit() {
            assertThatNullPointerException().isThrownBy(() -> InferenceResponse.of("Hello").withRateLimitedFor(null))
                .withMessage("rateLimitedFor must not be null");
        }

        @Test
        void describesItsRateLimit() {
            assertThat(InferenceResponse.of("Hello").withRateLimitedFor(Duration.ofSeconds(2)))
                .hasToString("InferenceResponse[output=5 chars, attempts=0, rateLimitedFor=PT2S]");
        }
    }

    @Test
    void leavesTheOutputOutOfItsDescription() {
        assertThat(InferenceResponse.of("the secret is 42").withAttempts(2))
            .hasToString("InferenceResponse[output=16 chars, attempts=2]");
    }
}
