package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.retry.Classification;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class AttemptTimeoutExceptionTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Nested
    class Contents {

        @Test
        void carriesTheMessageAndTheTimeoutAndNoCause() {
            AttemptTimeoutException timeout = new AttemptTimeoutException("took too long", TIMEOUT);

            assertThat(timeout).hasMessage("took too long").hasNoCause();
            assertThat(timeout.timeout()).isEqualTo(TIMEOUT);
        }

        @Test
        void namesTheTimeoutInTheMessageOfAnAttemptAbandonedAtIt() {
            AttemptTimeoutException timeout = new AttemptTimeoutException(TIMEOUT);

            assertThat(timeout).hasMessage("The attempt ran past its timeout of PT30S and was abandoned").hasNoCause();
            assertThat(timeout.timeout()).isEqualTo(TIMEOUT);
        }

        @Test
        void refusesANullTimeoutForTheMessageOfItsOwn() {
            assertThatNullPointerException().isThrownBy(() -> new AttemptTimeoutException((Duration) null))
                .withMessage("timeout must not be null");
        }

        @Test
        void isANetworkException() {
            assertThat(new AttemptTimeoutException("took too long", TIMEOUT)).isInstanceOf(NetworkException.class);
        }

        @Test
        void refusesATimeoutThatIsNotPositive() {
            assertThatIllegalArgumentException().isThrownBy(() -> new AttemptTimeoutException("x", Duration.ZERO))
                .withMessage("timeout must be positive, was PT0S");
        }

        @Test
        void refusesNulls() {
            assertThatNullPointerException().isThrownBy(() -> new AttemptTimeoutException("x", null))
                .withMessage("timeout must not be null");
            assertThatNullPointerException().isThrownBy(() -> new AttemptTimeoutException(null, TIMEOUT))
                .withMessage("message must not be null");
        }
    }

    @Nested
    class Classified {

        @Test
        void isRetriedOnTheBackoffScheduleWithNoRetryAfter() {
            Classification classification = Classification.of(new AttemptTimeoutException("took too long", TIMEOUT));

            assertThat(classification.isRetryable()).isTrue();
            assertThat(classification.kind()).isEqualTo(Classification.Kind.NETWORK);
            assertThat(classification.retryAfter()).isEmpty();
        }

        @Test
        void staysRetryableWithTheAbandonedAttemptsCancellationSuppressed() {
            AttemptTimeoutException timeout = new AttemptTimeoutException("took too long", TIMEOUT);
            timeout.addSuppressed(new CancellationException("request aborted"));

            assertThat(Classification.isRetryable(timeout)).isTrue();
        }
    }
}
