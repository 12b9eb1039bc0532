package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.Classification;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypedFailuresTests {

    @Nested
    class RetryAfterHeaders {

        private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

        @Test
        void preferMillisecondsToSeconds() {
            assertThat(TypedFailures.status(429, headers(Map.of("retry-after-ms", "1500", "Retry-After", "3600")), this.clock).retryAfter())
                .contains(Duration.ofMillis(1500));
        }

        @Test
        void fallBackToSecondsWhenTheMillisecondsAreGarbage() {
            assertThat(TypedFailures.status(429, headers(Map.of("retry-after-ms", "soon", "retry-after", "7")), this.clock).retryAfter())
                .contains(Duration.ofSeconds(7));
        }

        @Test
        void readAnHttpDate() {
            assertThat(TypedFailures.status(429, headers(Map.of("Retry-After", "Thu, 01 Jan 2026 00:00:30 GMT")), this.clock).retryAfter())
                .contains(Duration.ofSeconds(30));
        }

        @Test
        void areAbsentWithoutEitherHeader() {
            assertThat(TypedFailures.status(429, headers(Map.of()), this.clock).retryAfter()).isEmpty();
        }

        @Test
        void giveTheStatusFailureItsWait() {
            HttpStatusException failure = TypedFailures.status(429, headers(Map.of("Retry-After", "2")), this.clock);

            assertThat(failure.status()).isEqualTo(429);
            assertThat(failure.retryAfter()).contains(Duration.ofSeconds(2));
            assertThat(failure).hasMessage("The provider answered HTTP 429");
        }
    }

    @Nested
    class InBandErrors {

        @ParameterizedTest(name = "[{index}] {0} {1}")
        @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
                server_error     | -                    | 500
                api_error        | -                    | 500
                internal_error   | -                    | 500
                overloaded_error | -                    | 503
                Overloaded       | -                    | 503
                rate_limit_error | -                    | 429
                tokens           | rate_limit_exceeded  | 429
                """)
        void ofATransientTypeOrCodeStandForTheirStatus(String type, String code, int status) {
            assertThat(TypedFailures.inBand(type, code)).isNotNull()
                .satisfies((typed) -> assertThat(typed.status()).isEqualTo(status))
                .satisfies((typed) -> assertThat(Classification.isRetryable(typed)).isTrue());
        }

        @ParameterizedTest(name = "[{index}] {0} {1}")
        @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
                invalid_request_error | -
                authentication_error  | -
                insufficient_quota    | insufficient_quota
                -                     | -
                """)
        void ofAnyOtherTypeArePermanent(String type, String code) {
            assertThat(TypedFailures.inBand(type, code)).isNull();
        }
    }

    @Nested
    class NetworkFailures {

        @Test
        void keepTheSdksExceptionWithANetworkFailureInItsCauses() {
            IOException reset = new IOException("Connection reset");
            SdkIoException thrown = new SdkIoException("Request failed", reset);
            thrown.addSuppressed(new IllegalStateException("earlier"));

            SdkIoException failure = TypedFailures.asNetworkFailure(thrown, SdkIoException::new);

            assertThat(failure).hasMessage("Request failed");
            assertThat(failure.getStackTrace()).isEqualTo(thrown.getStackTrace());
            assertThat(failure.getSuppressed()).containsExactly(thrown.getSuppressed());
            assertThat(failure.getCause()).isInstanceOf(NetworkException.class).hasCause(reset);
            assertThat(Classification.isRetryable(failure)).isTrue();
        }
    }

    /** The first header value by name, case-insensitively, as the SDKs' headers give it. */
    private static Function<String, @Nullable String> headers(Map<String, String> values) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(values);
        return byName::get;
    }

    /** An SDK's I/O exception, as both SDKs declare theirs: a message and a cause. */
    static final class SdkIoException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        SdkIoException(@Nullable String message, Throwable cause) {
            super(message, cause);
        }
    }
}
