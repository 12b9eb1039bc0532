package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.failure.HttpStatusException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link CoolingDownException}: what a call with a fallback gave up rather than wait for.
 */
class CoolingDownExceptionTests {

    @Test
    void refusesANegativeNumberOfAttempts() {
        assertThatIllegalArgumentException().isThrownBy(() -> new CoolingDownException(-1, Duration.ZERO, null))
            .withMessage("attempts must not be negative, was -1");
    }

    @Test
    void saysWhatItRefusedToWaitFor() {
        assertThat(new CoolingDownException(0, Duration.ofSeconds(5), null)).hasMessage(
                "Gave up after 0 attempts rather than wait PT5S for the provider to cool down, since the caller has "
                        + "a fallback")
            .hasNoCause();
        assertThat(new CoolingDownException(1, Duration.ofSeconds(5), unauthorized()))
            .hasMessageStartingWith("Gave up after 1 attempt rather than wait PT5S");
    }

    private static HttpStatusException unauthorized() {
        return new HttpStatusException(401, "no", null);
    }
}
