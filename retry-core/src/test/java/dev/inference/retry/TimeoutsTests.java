package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TimeoutsTests {

    @Nested
    class Off {

        @Test
        void noneBoundsNothing() {
            Timeouts none = Timeouts.none();
            assertThat(none.attempt()).isEmpty();
            assertThat(none.firstToken()).isEmpty();
            assertThat(none.streamIdle()).isEmpty();
            assertThat(none.isNone()).isTrue();
        }

        @Test
        void valuesAllUnsetAreNone() {
            assertThat(Timeouts.of(null, null, null, Timeouts.Field::component)).isSameAs(Timeouts.none());
        }

        @Test
        void oneValueSetIsNotNone() {
            assertThat(Timeouts.none().withStreamIdle(Duration.ofSeconds(1)).isNone()).isFalse();
        }
    }

    @Nested
    class Values {

        @Test
        void keepsEachTimeoutAsGiven() {
            Timeouts timeouts = Timeouts.of(Duration.ofSeconds(20), Duration.ofSeconds(10), Duration.ofSeconds(5),
                    Timeouts.Field::component);
            assertThat(timeouts.attempt()).contains(Duration.ofSeconds(20));
            assertThat(timeouts.firstToken()).contains(Duration.ofSeconds(10));
            assertThat(timeouts.streamIdle()).contains(Duration.ofSeconds(5));
        }

        @Test
        void copiesSetOneTimeoutAndKeepTheOthers() {
            Timeouts timeouts = Timeouts.none().withAttempt(Duration.ofSeconds(3)).withFirstToken(Duration.ofSeconds(2));
            assertThat(timeouts.attempt()).contains(Duration.ofSeconds(3));
            assertThat(timeouts.firstToken()).contains(Duration.ofSeconds(2));
            assertThat(timeouts.streamIdle()).isEmpty();
        }

        @Test
        void equalValuesAreEqual() {
            assertThat(Timeouts.none().withAttempt(Duration.ofSeconds(3)))
                .isEqualTo(Timeouts.of(Duration.ofSeconds(3), null, null, Timeouts.Field::component))
                .hasSameHashCodeAs(Timeouts.none().withAttempt(Duration.ofSeconds(3)))
                .isNotEqualTo(Timeouts.none().withFirstToken(Duration.ofSeconds(3)));
        }

        @Test
        void describesEachTimeoutOrOff() {
            assertThat(Timeouts.none().withFirstToken(Duration.ofSeconds(2)))
                .hasToString("Timeouts[attempt=off, firstToken=PT2S, streamIdle=off]");
        }
    }

    @Nested
    class Validation {

        @ParameterizedTest
        @ValueSource(longs = { 0, -1 })
        void refusesATimeoutThatIsNotPositiveNamingItsProperty(long millis) {
            Duration invalid = Duration.ofMillis(millis);
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Timeouts.of(null, invalid, null, (field) -> "inference.retry." + field.component()))
                .withMessage("inference.retry.firstToken = " + invalid
                        + " is invalid: must be a positive duration, or left unset to turn this timeout off")
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("inference.retry.firstToken"));
        }

        @Test
        void refusesTheFirstInvalidTimeoutInTheOrderOfTheFields() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Timeouts.of(Duration.ZERO, null, Duration.ofSeconds(-1), Timeouts.Field::component))
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("attempt"));
        }

        @Test
        void copyRefusesATimeoutThatIsNotPositive() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Timeouts.none().withStreamIdle(Duration.ZERO))
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("streamIdle"));
        }
    }

    @Test
    void aRetrierHasNoTimeoutsUnlessSet() {
        Policy policy = new Policy(0, Duration.ofMillis(10), 2, Duration.ofMillis(10));
        assertThat(Retrier.builder(policy).build().timeouts()).isSameAs(Timeouts.none());
        Timeouts set = Timeouts.none().withAttempt(Duration.ofSeconds(1));
        assertThat(Retrier.builder(policy).timeouts(set).build().timeouts()).isSameAs(set);
    }
}
