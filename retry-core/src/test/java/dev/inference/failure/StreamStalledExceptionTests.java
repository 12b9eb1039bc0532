package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.retry.Classification;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StreamStalledExceptionTests {

    private static final Duration IDLE = Duration.ofSeconds(20);

    @Nested
    class Contents {

        @Test
        void carriesTheMessageAndTheIdleTimeoutAndNoCause() {
            StreamStalledException stalled = new StreamStalledException("silent", IDLE);

            assertThat(stalled).hasMessage("silent").hasNoCause();
            assertThat(stalled.idleTimeout()).isEqualTo(IDLE);
        }

        @Test
        void isNotANetworkException() {
            assertThat(new StreamStalledException("silent", IDLE)).isNotInstanceOf(NetworkException.class);
        }

        @Test
        void refusesAnIdleTimeoutThatIsNotPositive() {
            assertThatIllegalArgumentException().isThrownBy(() -> new StreamStalledException("x", Duration.ofMillis(-1)))
                .withMessage("idleTimeout must be positive, was PT-0.001S");
        }

        @Test
        void refusesNulls() {
            assertThatNullPointerException().isThrownBy(() -> new StreamStalledException("x", null))
                .withMessage("idleTimeout must not be null");
            assertThatNullPointerException().isThrownBy(() -> new StreamStalledException(null, IDLE))
                .withMessage("message must not be null");
        }
    }

    @Nested
    class Classified {

        @Test
        void isPermanent() {
            Classification classification = Classification.of(new StreamStalledException("silent", IDLE));

            assertThat(classification.isRetryable()).isFalse();
            assertThat(classification.kind()).isEqualTo(Classification.Kind.UNTYPED);
        }

        @Test
        void staysPermanentWithWhatClosingTheStreamThrewSuppressed() {
            StreamStalledException stalled = new StreamStalledException("silent", IDLE);
            stalled.addSuppressed(new NetworkException("connection reset while closing", null));

            assertThat(Classification.isRetryable(stalled)).isFalse();
        }
    }
}
