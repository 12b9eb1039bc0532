package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.failure.NetworkException;
import org.junit.jupiter.api.Test;

class StreamResultTests {

    private final NetworkException dropped = new NetworkException("connection dropped", null);

    @Test
    void completesWithoutFailureAndZeroAttempts() {
        assertThat(StreamResult.completed().failure()).isEmpty();
        assertThat(StreamResult.completed().attempts()).isZero();
    }

    @Test
    void failsWithTheGivenFailure() {
        StreamResult result = StreamResult.failed(this.dropped);
        assertThat(result.failure()).containsSame(this.dropped);
        assertThat(result.attempts()).isZero();
    }

    @Test
    void refusesANullFailure() {
        assertThatNullPointerException().isThrownBy(() -> StreamResult.failed(null))
            .withMessage("failure must not be null");
    }

    @Test
    void stampsAttemptsOnACopyKeepingTheOutcome() {
        StreamResult failed = StreamResult.failed(this.dropped);
        StreamResult stamped = failed.withAttempts(2);
        assertThat(stamped.attempts()).isEqualTo(2);
        assertThat(stamped.failure()).containsSame(this.dropped);
        assertThat(failed.attempts()).isZero();
        assertThat(StreamResult.completed().withAttempts(2).failure()).isEmpty();
    }

    @Test
    void acceptsZeroAttempts() {
        assertThat(StreamResult.completed().withAttempts(3).withAttempts(0).attempts()).isZero();
    }

    @Test
    void refusesNegativeAttempts() {
        assertThatIllegalArgumentException().isThrownBy(() -> StreamResult.completed().withAttempts(-1))
            .withMessage("attempts must not be negative, was -1");
    }

    @Test
    void equalsAResultWithTheSameOutcomeAndAttempts() {
        assertThat(StreamResult.completed().withAttempts(1)).isEqualTo(StreamResult.completed().withAttempts(1))
            .hasSameHashCodeAs(StreamResult.completed().withAttempts(1))
            .isNotEqualTo(StreamResult.completed())
            .isNotEqualTo(StreamResult.failed(this.dropped).withAttempts(1));
    }

    @Test
    void hashesResultsThatDifferInAttemptsApart() {
        assertThat(StreamResult.completed().withAttempts(1))
            .doesNotHaveSameHashCodeAs(StreamResult.completed().withAttempts(2));
    }

    @Test
    void describesItsOutcome() {
        assertThat(StreamResult.completed().withAttempts(2)).hasToString("StreamResult[completed, attempts=2]");
        assertThat(StreamResult.failed(this.dropped)).hasToString(
                "StreamResult[failed: dev.inference.failure.NetworkException: connection dropped, attempts=0]");
    }
}
