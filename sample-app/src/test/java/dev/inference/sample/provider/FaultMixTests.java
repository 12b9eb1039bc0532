package dev.inference.sample.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tests for {@link FaultMix}.
 */
class FaultMixTests {

    @Nested
    class Validation {

        @ParameterizedTest
        @ValueSource(doubles = { -0.1, 1.5, Double.NaN, Double.POSITIVE_INFINITY })
        void refusesAFractionOutsideZeroToOne(double fraction) {
            assertThatIllegalArgumentException().isThrownBy(() -> new FaultMix(0, 0, fraction, 0, 0))
                    .withMessage("The server-error fault fraction must be between 0 and 1, was " + fraction);
        }

        @Test
        void refusesFractionsAddingUpToMoreThanOne() {
            assertThatIllegalArgumentException().isThrownBy(() -> new FaultMix(0.5, 0.5, 0.25, 0, 0))
                    .withMessage("The fault fractions must add up to at most 1, but rate-limited 0.5 + unavailable "
                            + "0.5 + server-error 0.25 + dropped 0.0 + cut 0.0 = 1.25; lower some of them");
        }

        @Test
        void acceptsFractionsAddingUpToExactlyOne() {
            assertThat(new FaultMix(0.2, 0.2, 0.2, 0.2, 0.2).pick(0.999)).isEqualTo(Outcome.CUT);
        }
    }

    @ParameterizedTest
    @CsvSource({ "0.0, RATE_LIMITED", "0.0999, RATE_LIMITED", "0.1001, UNAVAILABLE", "0.2999, UNAVAILABLE",
            "0.3001, SERVER_ERROR", "0.5999, SERVER_ERROR", "0.6001, DROP", "0.7999, DROP", "0.8001, CUT",
            "0.8499, CUT", "0.8501, SUCCESS", "0.9999, SUCCESS" })
    void picksConsecutiveSlicesInComponentOrder(double draw, Outcome expected) {
        assertThat(new FaultMix(0.1, 0.2, 0.3, 0.2, 0.05).pick(draw)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(doubles = { 0.0, 0.5, 0.9999 })
    void noneAlwaysSucceeds(double draw) {
        assertThat(FaultMix.none().pick(draw)).isEqualTo(Outcome.SUCCESS);
    }
}
