package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import org.junit.jupiter.api.Test;

class ExhaustedExceptionTests {

    private final HttpStatusException unavailable = new HttpStatusException(503, "unavailable", null);

    @Test
    void carriesTheAttemptsAndTheFinalFailure() {
        ExhaustedException ex = new ExhaustedException(3, this.unavailable);
        assertThat(ex.attempts()).isEqualTo(3);
        assertThat(ex.getCause()).isSameAs(this.unavailable);
    }

    @Test
    void namesTheAttemptsAndTheFinalFailureInItsMessage() {
        assertThat(new ExhaustedException(3, this.unavailable))
            .hasMessage("Gave up after 3 attempts: dev.inference.failure.HttpStatusException: unavailable");
    }

    @Test
    void saysAttemptInTheSingular() {
        assertThat(new ExhaustedException(1, new NetworkException("connection reset", null)))
            .hasMessage("Gave up after 1 attempt: dev.inference.failure.NetworkException: connection reset");
    }

    @Test
    void refusesANullCause() {
        assertThatNullPointerException().isThrownBy(() -> new ExhaustedException(3, null))
            .withMessage("cause must not be null");
    }

    @Test
    void refusesLessThanOneAttempt() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ExhaustedException(0, this.unavailable))
            .withMessage("attempts must be at least 1, was 0");
    }
}
