package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.failure.NetworkException;
import org.junit.jupiter.api.Test;

class AttemptEventTests {

    @Test
    void succeededWithoutFailure() {
        assertThat(new AttemptEvent("chat", Operation.INVOKE, 1, null, false).succeeded()).isTrue();
    }

    @Test
    void failedWithAFailure() {
        NetworkException reset = new NetworkException("connection reset", null);
        AttemptEvent event = new AttemptEvent("chat", Operation.STREAM, 2, reset, true);
        assertThat(event.succeeded()).isFalse();
        assertThat(event.failure()).isSameAs(reset);
        assertThat(event.retryable()).isTrue();
    }

    @Test
    void refusesANullClient() {
        assertThatNullPointerException().isThrownBy(() -> new AttemptEvent(null, Operation.INVOKE, 1, null, false))
            .withMessage("client must not be null");
    }

    @Test
    void refusesANullOperation() {
        assertThatNullPointerException().isThrownBy(() -> new AttemptEvent("chat", null, 1, null, false))
            .withMessage("operation must not be null");
    }

    @Test
    void refusesAnAttemptBelowOne() {
        assertThatIllegalArgumentException().isThrownBy(() -> new AttemptEvent("chat", Operation.INVOKE, 0, null, false))
            .withMessage("attempt must be at least 1, was 0");
    }
}
