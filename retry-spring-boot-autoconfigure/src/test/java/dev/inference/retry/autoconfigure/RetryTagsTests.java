package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.StreamStalledException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RetryTagsTests {

    @Nested
    class Timeouts {

        @Test
        void tagsAnAttemptTimeoutAsSuch() {
            assertThat(RetryTags.error(new AttemptTimeoutException("slow", Duration.ofSeconds(30))))
                .isEqualTo("attempt_timeout");
        }

        @Test
        void readsTheFirstTypedFailureOfTheChain() {
            NetworkException wrapped = new NetworkException("wrapped",
                    new AttemptTimeoutException("slow", Duration.ofSeconds(30)));

            assertThat(RetryTags.error(wrapped)).isEqualTo("network");
            assertThat(RetryTags.error(new IllegalStateException("wrapped",
                    new AttemptTimeoutException("slow", Duration.ofSeconds(30))))).isEqualTo("attempt_timeout");
        }

        @Test
        void keepsTheTagOfAnyOtherNetworkFailure() {
            assertThat(RetryTags.error(new NetworkException("reset", null))).isEqualTo("network");
        }

        @Test
        void tagsAStalledStreamByItsClassName() {
            assertThat(RetryTags.error(new StreamStalledException("silent", Duration.ofSeconds(20))))
                .isEqualTo("StreamStalledException");
        }

        @Test
        void tagsTheCallersCancellationOverAnAttemptTimeout() {
            AttemptTimeoutException timeout = new AttemptTimeoutException("slow", Duration.ofSeconds(30));
            CancellationException cancelled = new CancellationException("caller gave up");
            cancelled.initCause(timeout);

            assertThat(RetryTags.error(cancelled)).isEqualTo("cancelled");
        }
    }
}
