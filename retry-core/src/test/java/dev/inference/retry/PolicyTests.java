package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PolicyTests {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @Test
    void keepsTheFourFieldsAsGiven() {
        Policy policy = new Policy(2, Duration.ofMillis(100), 5, Duration.ofSeconds(3));
        assertThat(policy.stableRetries()).isEqualTo(2);
        assertThat(policy.stableDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.maxAttempts()).isEqualTo(5);
        assertThat(policy.maxDelay()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void refusesTheZeroPolicyNamingMaxAttemptsFirst() {
        assertThatExceptionOfType(ConfigException.class)
            .isThrownBy(() -> new Policy(0, Duration.ZERO, 0, Duration.ZERO))
            .withMessage("maxAttempts = 0 is invalid: must be at least 1")
            .satisfies((ex) -> assertRule(ex, "maxAttempts", 0, "must be at least 1"));
    }

    @Nested
    class MaxAttempts {

        @Test
        void acceptsOne() {
            assertThat(new Policy(0, SECOND, 1, SECOND).maxAttempts()).isEqualTo(1);
        }

        @Test
        void acceptsIntegerMaxValue() {
            assertThat(new Policy(0, SECOND, Integer.MAX_VALUE, SECOND).maxAttempts()).isEqualTo(Integer.MAX_VALUE);
        }

        @ParameterizedTest
        @ValueSource(ints = { 0, -1, Integer.MIN_VALUE })
        void refusesLessThanOne(int maxAttempts) {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> new Policy(0, SECOND, maxAttempts, SECOND))
                .withMessage("maxAttempts = " + maxAttempts + " is invalid: must be at least 1")
                .satisfies((ex) -> assertRule(ex, "maxAttempts", maxAttempts, "must be at least 1"));
        }
    }

    @Nested
    class StableRetries {

        @Test
        void acceptsZero() {
            assertThat(new Policy(0, SECOND, 3, SECOND).stableRetries()).isZero();
        }

        @Test
        void acceptsOneLessThanMaxAttempts() {
            assertThat(new Policy(2, SECOND, 3, SECOND).stableRetries()).isEqualTo(2);
        }

        @Test
        void refusesANegativeValue() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> new Policy(-1, SECOND, 3, SECOND))
                .withMessage("stableRetries = -1 is invalid: must not be negative")
                .satisfies((ex) -> assertRule(ex, "stableRetries", -1, "must not be negative"));
        }

        @Test
        void refusesMaxAttempts() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> new Policy(3, SECOND, 3, SECOND))
                .withMessage("stableRetries = 3 is invalid: must be less than maxAttempts (3)")
                .satisfies((ex) -> assertRule(ex, "stableRetries", 3, "must be less than maxAttempts (3)"));
        }
    }

    @Nested
    class StableDelay {

        @Test
        void acceptsOneNanosecond() {
            assertThat(new Policy(0, Duration.ofNanos(1), 3, SECOND).stableDelay()).isEqualTo(Duration.ofNanos(1));
        }

        @Test
        void refusesZero() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> new Policy(0, Duration.ZERO, 3, SECOND))
                .withMessage("stableDelay = PT0S is invalid: must be a positive duration")
                .satisfies((ex) -> assertRule(ex, "stableDelay", Duration.ZERO, "must be a positive duration"));
        }

        @Test
        void refusesANegativeDuration() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> new Policy(0, Duration.ofNanos(-1), 3, SECOND))
                .withMessage("stableDelay = PT-0.000000001S is invalid: must be a positive duration");
        }

        @Test
        void refusesNull() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> new Policy(0, null, 3, SECOND))
                .withMessage("stableDelay is not set: must be a positive duration")
                .satisfies((ex) -> assertMissing(ex, "stableDelay", "must be a positive duration"));
        }
    }

    @Nested
    class MaxDelay {

        @Test
        void acceptsStableDelay() {
            assertThat(new Policy(0, SECOND, 3, SECOND).maxDelay()).isEqualTo(SECOND);
        }

        @Test
        void acceptsTheLongestDuration() {
            Duration longest = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
            assertThat(new Policy(0, SECOND, 3, longest).maxDelay()).isEqualTo(longest);
        }

        @Test
        void refusesLessThanStableDelay() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> new Policy(0, SECOND, 3, SECOND.minusNanos(1)))
                .withMessage("maxDelay = PT0.999999999S is invalid: must be at least stableDelay (PT1S)")
                .satisfies((ex) -> assertRule(ex, "maxDelay", SECOND.minusNanos(1), "must be at least stableDelay (PT1S)"));
        }

        @Test
        void refusesNull() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> new Policy(0, SECOND, 3, null))
                .withMessage("maxDelay is not set: must be a duration of at least stableDelay (PT1S)")
                .satisfies((ex) -> assertMissing(ex, "maxDelay", "must be a duration of at least stableDelay (PT1S)"));
        }
    }

    private static void assertRule(ConfigException ex, String field, Object value, String rule) {
        assertThat(ex.field()).isEqualTo(field);
        assertThat(ex.value()).contains(value);
        assertThat(ex.rule()).isEqualTo(rule);
    }

    private static void assertMissing(ConfigException ex, String field, String rule) {
        assertThat(ex.field()).isEqualTo(field);
        assertThat(ex.value()).isEmpty();
        assertThat(ex.rule()).isEqualTo(rule);
    }

    @Nested
    class InAConfigurationsNames {

        private final Function<Policy.Field, String> properties = (field) -> "retry."
                + field.component().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);

        @Test
        void buildsTheSamePolicyAsTheConstructor() {
            assertThat(Policy.of(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1), this.properties))
                .isEqualTo(new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1)));
        }

        @Test
        void namesTheOffendingFieldAndTheFieldItIsComparedWith() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Policy.of(3, Duration.ofMillis(100), 3, Duration.ofSeconds(1), this.properties))
                .satisfies((ex) -> {
                    assertThat(ex.field()).isEqualTo("retry.stable-retries");
                    assertThat(ex.rule()).isEqualTo("must be less than retry.max-attempts (3)");
                });
        }

        @Test
        void namesAMissingDelay() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Policy.of(1, Duration.ofMillis(100), 3, null, this.properties))
                .withMessage("retry.max-delay is not set: must be a duration of at least retry.stable-delay (PT0.1S)");
        }

        @Test
        void refusesNamesThatNameNothing() {
            assertThatNullPointerException()
                .isThrownBy(() -> Policy.of(0, Duration.ZERO, 1, Duration.ZERO, (field) -> null))
                .withMessage("names returned null for STABLE_DELAY");
        }

        @Test
        void listsTheRecordComponentsInOrder() {
            assertThat(Arrays.stream(Policy.Field.values()).map(Policy.Field::component))
                .containsExactly("stableRetries", "stableDelay", "maxAttempts", "maxDelay");
        }
    }
}
