package dev.inference.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestWindowTests {

    private static final long MS = 1_000_000L;

    @Nested
    class Admission {

        @Test
        void admitsUpToTheCapacityInOneWindow() {
            RequestWindow window = new RequestWindow(3, Duration.ofSeconds(2));

            assertThat(IntStream.range(0, 4).mapToObj((i) -> window.admit(100 * MS).admitted()))
                .containsExactly(true, true, true, false);
        }

        @Test
        void countsWhatRemainsAfterEachAdmittedRequest() {
            RequestWindow window = new RequestWindow(3, Duration.ofSeconds(2));

            assertThat(IntStream.range(0, 4).map((i) -> window.admit(100 * MS).remaining())).containsExactly(2, 1, 0, 0);
        }

        @Test
        void startsAFreshWindowAtTheBoundary() {
            RequestWindow window = new RequestWindow(1, Duration.ofSeconds(2));
            window.admit(0);

            assertThat(window.admit(1999 * MS).admitted()).isFalse();
            assertThat(window.admit(2000 * MS).admitted()).isTrue();
        }

        @Test
        void aRefusedRequestUsesNothingUp() {
            RequestWindow window = new RequestWindow(2, Duration.ofSeconds(2));
            window.admit(0);
            window.admit(0);
            for (int i = 0; i < 50; i++) {
                window.admit(1000 * MS);
            }

            assertThat(window.admit(2000 * MS).remaining()).isEqualTo(1);
            assertThat(window.admit(2000 * MS).admitted()).isTrue();
        }

        @Test
        void saysTheTimeToTheWindowsEnd() {
            RequestWindow window = new RequestWindow(2, Duration.ofSeconds(2));

            assertThat(window.admit(2750 * MS).reset()).isEqualTo(Duration.ofMillis(1250));
        }

        @Test
        void refusesAZeroCapacity() {
            assertThatIllegalArgumentException().isThrownBy(() -> new RequestWindow(0, Duration.ofSeconds(1)))
                .withMessage("capacity must be at least 1, was 0");
        }

        @Test
        void refusesAnEmptyWindow() {
            assertThatIllegalArgumentException().isThrownBy(() -> new RequestWindow(1, Duration.ZERO))
                .withMessage("window must be positive, was PT0S");
        }
    }

    @Nested
    class Headers {

        @ParameterizedTest
        @CsvSource({ "1250, 1.25s", "2000, 2s", "850, 850ms", "1, 1ms", "1999, 1.999s" })
        void writesTheResetAsOpenAiDoes(long millis, String header) {
            assertThat(new RequestWindow.Admission(true, 1, Duration.ofMillis(millis)).resetHeader()).isEqualTo(header);
        }

        @Test
        void writesASubMillisecondResetAsOneMillisecond() {
            assertThat(new RequestWindow.Admission(true, 1, Duration.ofNanos(300)).resetHeader()).isEqualTo("1ms");
        }

        @ParameterizedTest
        @CsvSource({ "1250, 2", "2000, 2", "1, 1", "999, 1", "1001, 2" })
        void roundsRetryAfterUpToWholeSeconds(long millis, String header) {
            assertThat(new RequestWindow.Admission(false, 0, Duration.ofMillis(millis)).retryAfterHeader())
                .isEqualTo(header);
        }
    }
}
