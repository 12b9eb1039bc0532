package dev.inference.sample.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tests for {@link RateLimit}, in virtual time.
 */
class RateLimitTests {

    private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - 1_000_000_000L);

    /** Made at an even second of the wall clock: its first window starts now. */
    private final RateLimit limit = RateLimit.withClocks(2, Duration.ofSeconds(2), this.nanos::get, 1_800_000_000_000L);

    private void advance(Duration duration) {
        this.nanos.addAndGet(duration.toNanos());
    }

    @Test
    void admitsTheWindowsRequestsCountingDownWhatIsLeft() {
        advance(Duration.ofMillis(500));

        assertThat(this.limit.admit()).isEqualTo(new RateLimit.Window(true, 2, 1, Duration.ofMillis(1500)));
        assertThat(this.limit.admit()).isEqualTo(new RateLimit.Window(true, 2, 0, Duration.ofMillis(1500)));
    }

    @Test
    void refusesARequestPastTheLimitUntilTheNextWindow() {
        this.limit.admit();
        this.limit.admit();
        advance(Duration.ofMillis(1999));

        assertThat(this.limit.admit()).isEqualTo(new RateLimit.Window(false, 2, 0, Duration.ofMillis(1)));
        advance(Duration.ofMillis(1));
        assertThat(this.limit.admit()).isEqualTo(new RateLimit.Window(true, 2, 1, Duration.ofSeconds(2)));
    }

    @Test
    void startsEveryWindowFull() {
        this.limit.admit();
        advance(Duration.ofSeconds(7));

        assertThat(this.limit.admit()).isEqualTo(new RateLimit.Window(true, 2, 1, Duration.ofSeconds(1)));
    }

    @Test
    void alignsItsWindowsToTheWallClock() {
        RateLimit late = RateLimit.withClocks(2, Duration.ofSeconds(2), this.nanos::get, 1_800_000_000_500L);

        assertThat(late.admit().resetIn()).isEqualTo(Duration.ofMillis(1500));
    }

    @ParameterizedTest(name = "{0} requests per {1}")
    @CsvSource({ "0, PT1S, 'requests must be at least 1, was 0'", "1, PT0.0009S, 'window must be at least 1ms, was PT0.0009S'" })
    void refusesALimitThatAdmitsNothing(int requests, Duration window, String message) {
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.of(requests, window)).withMessage(message);
    }

    @Test
    void describesItself() {
        assertThat(RateLimit.of(20, Duration.ofSeconds(2))).hasToString("20 requests per PT2S");
    }
}
