package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeadlineExceededExceptionTests {

    @Test
    void carriesTheMessageWithoutCause() {
        assertThat(new DeadlineExceededException("The call's deadline 2026-01-01T00:00:01Z has passed"))
            .hasMessage("The call's deadline 2026-01-01T00:00:01Z has passed")
            .hasNoCause();
    }
}
