package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.Classification;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShouldRetryHeaderTests {

    @Nested
    class Reading {

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "false", "FALSE", " False " })
        void refusesARetryOnFalse(String value) {
            assertThat(ShouldRetryHeader.refusesRetry(Map.of("x-should-retry", value)::get)).isTrue();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "true", "", "no", "0", "falsey" })
        void refusesNothingOnAnyOtherValue(String value) {
            assertThat(ShouldRetryHeader.refusesRetry(Map.of("x-should-retry", value)::get)).isFalse();
        }

        @Test
        void refusesNothingWithoutTheHeader() {
            assertThat(ShouldRetryHeader.refusesRetry(Map.<String, String>of()::get)).isFalse();
        }
    }

    @Nested
    class Classified {

        @ParameterizedTest(name = "HTTP {0}")
        @ValueSource(ints = { 408, 429, 500, 503 })
        void makesARetryableStatusPermanentWhenRefused(int status) {
            HttpStatusException refused = new HttpStatusException(status, "no", Duration.ofSeconds(1), null, true);

            assertThat(refused.retryRefused()).isTrue();
            assertThat(Classification.isRetryable(refused)).isFalse();
            assertThat(Classification.retryAfter(refused)).isEmpty();
        }

        @Test
        void leavesAPermanentStatusPermanent() {
            assertThat(Classification.isRetryable(new HttpStatusException(400, "bad", null, null, false))).isFalse();
        }

        @Test
        void leavesAStatusWhoseRetryWasNotRefusedAsItsStatusSays() {
            HttpStatusException unavailable = new HttpStatusException(503, "busy", null, null, false);

            assertThat(unavailable.retryRefused()).isFalse();
            assertThat(Classification.isRetryable(unavailable)).isTrue();
        }

        @Test
        void isNotRefusedByTheShorterConstructors() {
            assertThat(new HttpStatusException(503, "busy", null).retryRefused()).isFalse();
            assertThat(new HttpStatusException(503, "busy", null, Duration.ofSeconds(1)).retryRefused()).isFalse();
        }
    }
}
