package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTests {

    private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

    @Nested
    class WaitNanos {

        @Test
        void countsAnOrdinaryDurationExactly() {
            assertThat(Durations.toWaitNanos(Duration.ofMillis(1500))).isEqualTo(1_500_000_000L);
        }

        @Test
        void waitsNotAtAllForANegativeDuration() {
            assertThat(Durations.toWaitNanos(Duration.ofSeconds(-1))).isZero();
        }

        @Test
        void saturatesADurationTooLongForALong() {
            assertThat(Durations.toWaitNanos(LONGEST)).isEqualTo(Long.MAX_VALUE);
        }

        @Test
        void countsTheLongestWaitAsTheLargestLong() {
            assertThat(Durations.toWaitNanos(Durations.LONGEST_WAIT)).isEqualTo(Long.MAX_VALUE);
        }
    }

    @Nested
    class Scale {

        @Test
        void multipliesAndRoundsTowardsZero() {
            assertThat(Durations.scale(Duration.ofNanos(10), 0.95)).isEqualTo(Duration.ofNanos(9));
        }

        @Test
        void scalesPastTheNanosecondRangeInSeconds() {
            assertThat(Durations.scale(Duration.ofSeconds(Long.MAX_VALUE / 2), 1.5))
                .isEqualTo(Duration.ofSeconds((long) ((Long.MAX_VALUE / 2) * 1.5)));
        }

        @Test
        void saturatesInsteadOfOverflowing() {
            assertThat(Durations.scale(LONGEST, 1.09)).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
        }

        @Test
        void scalesToNothingByZero() {
            assertThat(Durations.scale(Duration.ofSeconds(1), 0)).isZero();
        }

        @Test
        void refusesANegativeDuration() {
            assertThatIllegalArgumentException().isThrownBy(() -> Durations.scale(Duration.ofSeconds(-1), 1))
                .withMessage("duration must not be negative, was PT-1S");
        }

        @ParameterizedTest
        @ValueSource(doubles = { -0.5, Double.NaN, Double.POSITIVE_INFINITY })
        void refusesAFactorThatIsNegativeOrNotFinite(double factor) {
            assertThatIllegalArgumentException().isThrownBy(() -> Durations.scale(Duration.ofSeconds(1), factor))
                .withMessageStartingWith("factor must be finite and not negative");
        }
    }

    @Nested
    class Park {

        @Test
        void returnsAtOnceWhenTheWaitIsAlreadyOver() throws InterruptedException {
            int[] asked = new int[1];
            Durations.park(Long.MAX_VALUE, () -> ++asked[0] > 0, this);
            assertThat(asked[0]).isEqualTo(1);
        }

        @Test
        void doesNotParkForNoTime() throws InterruptedException {
            int[] asked = new int[1];
            Durations.park(0, () -> ++asked[0] < 0, this);
            assertThat(asked[0]).isEqualTo(1);
        }

        @Test
        void throwsAndClearsTheInterruptOfAnInterruptedThread() {
            Thread.currentThread().interrupt();
            assertThatExceptionOfType(InterruptedException.class)
                .isThrownBy(() -> Durations.park(Long.MAX_VALUE, () -> false, this));
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }
}
