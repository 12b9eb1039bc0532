package dev.inference.retry.springai.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.errors.ApiException;
import com.google.genai.errors.ClientException;
import com.google.genai.errors.GenAiIOException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.springai.GoogleWire;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How a Gemini failure is read: its body's {@code status} before its HTTP code, its {@code RetryInfo}
 * after the {@code Retry-After} header; and how the SDK's exceptions are translated for an application's
 * own model on the SDK.
 */
class GoogleFailuresTests {

    @Nested
    class Typed {

        @ParameterizedTest(name = "{0} {1}: retried {2}, as {3}")
        @CsvSource({ "429, RESOURCE_EXHAUSTED, true, 429", "503, UNAVAILABLE, true, 503", "500, INTERNAL, true, 500",
                "504, DEADLINE_EXCEEDED, true, 504", "400, INVALID_ARGUMENT, false, 400",
                "403, PERMISSION_DENIED, false, 403", "404, NOT_FOUND, false, 404", "500, UNKNOWN, false, 400",
                "503, FAILED_PRECONDITION, false, 400", "501, UNIMPLEMENTED, false, 400",
                "500, PERMISSION_DENIED, false, 403", "400, UNAVAILABLE, true, 503" })
        void decidesByTheStatusBeforeTheCode(int code, String status, boolean retried, int typedStatus) {
            HttpStatusException typed = GoogleFailures.typed(code,
                    new GoogleFailures.Error(code, status, Optional.empty()), Optional.empty(), false);

            assertThat(Classification.isRetryable(typed)).isEqualTo(retried);
            assertThat(typed.status()).isEqualTo(typedStatus);
        }

        @ParameterizedTest(name = "{0}: retried {1}")
        @CsvSource({ "429, true", "502, true", "503, true", "408, true", "400, false", "401, false" })
        void decidesByTheCodeWithoutAStatus(int code, boolean retried) {
            HttpStatusException typed = GoogleFailures.typed(code, GoogleFailures.Error.NONE, Optional.empty(), false);

            assertThat(Classification.isRetryable(typed)).isEqualTo(retried);
            assertThat(typed.status()).isEqualTo(code);
        }

        @Test
        void takesTheRetryInfoDelayAsTheRetryAfter() {
            HttpStatusException typed = GoogleFailures.typed(429,
                    GoogleFailures.Error.parse(bytes(GoogleWire.errorBody(429, "RESOURCE_EXHAUSTED", "Slow", "36s"))),
                    Optional.empty(), false);

            assertThat(typed.retryAfter()).contains(Duration.ofSeconds(36));
        }

        @Test
        void takesTheRetryAfterHeaderBeforeTheRetryInfo() {
            HttpStatusException typed = GoogleFailures.typed(429,
                    GoogleFailures.Error.parse(bytes(GoogleWire.errorBody(429, "RESOURCE_EXHAUSTED", "Slow", "36s"))),
                    Optional.of(Duration.ofSeconds(2)), false);

            assertThat(typed.retryAfter()).contains(Duration.ofSeconds(2));
        }

        @ParameterizedTest(name = "{0} {1}")
        @CsvSource({ "503, UNAVAILABLE", "429, RESOURCE_EXHAUSTED", "500," })
        void makesAFailureWhoseHeadersRefuseARetryPermanentWhateverItsStatus(int code, String status) {
            HttpStatusException typed = GoogleFailures.typed(code,
                    new GoogleFailures.Error(code, status, Optional.empty()), Optional.empty(), true);

            assertThat(Classification.isRetryable(typed)).isFalse();
            assertThat(typed.status()).isEqualTo(code);
        }
    }

    @Nested
    class ErrorBody {

        @Test
        void readsTheCodeTheStatusAndTheRetryInfo() {
            GoogleFailures.Error error = GoogleFailures.Error
                .parse(bytes(GoogleWire.errorBody(429, "RESOURCE_EXHAUSTED", "Slow", "1.5s")));

            assertThat(error).isEqualTo(new GoogleFailures.Error(429, "RESOURCE_EXHAUSTED",
                    Optional.of(Duration.ofMillis(1500))));
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "", "not json", "[]", "{}", "{\"error\":\"busy\"}", "<html>502 Bad Gateway</html>" })
        void isNoneForABodyThatIsNotGeminisError(String body) {
            assertThat(GoogleFailures.Error.parse(bytes(body))).isEqualTo(GoogleFailures.Error.NONE);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "0s", "-1s", "soon", "36" })
        void ignoresARetryDelayThatGivesNoWait(String retryDelay) {
            assertThat(GoogleFailures.Error.parse(bytes(GoogleWire.errorBody(429, "RESOURCE_EXHAUSTED", "Slow",
                    retryDelay))).retryDelay()).isEmpty();
        }
    }

    @Nested
    class Translator {

        @Test
        void translatesTheSdksExceptionWithTheRetryInfoItCopiedIntoItsMessage() {
            ApiException thrown = new ClientException(429, "Too Many Requests", "Slow\nDetails:\n"
                    + "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"7s\"}");

            Optional<RuntimeException> typed = GoogleFailures.translator().translate(thrown);

            assertThat(typed).containsInstanceOf(HttpStatusException.class);
            HttpStatusException status = (HttpStatusException) typed.orElseThrow();
            assertThat(status.status()).isEqualTo(429);
            assertThat(status.retryAfter()).contains(Duration.ofSeconds(7));
            assertThat(status).hasCause(thrown);
        }

        @Test
        void takesAStatusFromAStreamsErrorOverItsCode() {
            ApiException thrown = new ApiException(500, "UNKNOWN", "Something");

            RuntimeException typed = GoogleFailures.translator().translate(thrown).orElseThrow();

            assertThat(Classification.isRetryable(typed)).isFalse();
        }

        @Test
        void translatesTheSdksIoExceptionAsANetworkFailure() {
            GenAiIOException thrown = new GenAiIOException("Failed to execute HTTP request.", new IOException("reset"));

            assertThat(GoogleFailures.translator().translate(thrown)).containsInstanceOf(NetworkException.class);
        }

        @Test
        void knowsNothingElse() {
            assertThat(GoogleFailures.translator().translate(new IllegalStateException("other"))).isEmpty();
        }
    }

    @Nested
    class RetryOutcome {

        @Test
        void isTheRetrysOwnExceptionInPlaceOfTheModelsWrapper() {
            ExhaustedException exhausted = new ExhaustedException(3, new HttpStatusException(503, "busy", null));

            assertThat(RetriedGoogleGenAiChatModel
                .retryOutcome(new RuntimeException("Failed to generate content", exhausted))).isSameAs(exhausted);
        }

        @Test
        void isACancellationInPlaceOfTheModelsWrapper() {
            CancellationException cancelled = new CancellationException("interrupted");

            assertThat(RetriedGoogleGenAiChatModel
                .retryOutcome(new RuntimeException("Failed to generate content", cancelled))).isSameAs(cancelled);
        }

        @Test
        void isTheModelsWrapperOfAPermanentFailure() {
            RuntimeException wrapper = new RuntimeException("Failed to generate content",
                    new ClientException(400, "Bad Request", "Bad"));

            assertThat(RetriedGoogleGenAiChatModel.retryOutcome(wrapper)).isSameAs(wrapper);
        }
    }

    private static byte[] bytes(String body) {
        return body.getBytes(StandardCharsets.UTF_8);
    }
}
