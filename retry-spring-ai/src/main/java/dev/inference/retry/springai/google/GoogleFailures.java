package dev.inference.retry.springai.google;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.genai.errors.ApiException;
import com.google.genai.errors.GenAiIOException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.RetryAfter;
import dev.inference.retry.Classification;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.exchange.TypedFailures;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * What a Gemini failure means to the retry, and how the Google GenAI SDK (1.65.0) throws it.
 *
 * <p>Gemini answers an error with a body {@code {"error":{"code":429,"message":…,"status":
 * "RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":
 * "36s"}]}}}, and writes the same object as a stream's event. Its {@code status} decides, by the core's
 * table of error types ({@link ProviderErrorTypes}): {@code RESOURCE_EXHAUSTED}, {@code UNAVAILABLE},
 * {@code INTERNAL} and {@code DEADLINE_EXCEEDED} are retried, every other status is permanent, even
 * with an HTTP code that would be retried; without a status, the HTTP code decides. The
 * {@code retryDelay} counts as a {@code Retry-After} (after the header, which comes first), capped as
 * one. Each failure is the SDK's own exception, made by the SDK from the same response, with the typed
 * failure as its cause.
 */
final class GoogleFailures {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

    /** A {@code google.rpc.Code} name, such as {@code RESOURCE_EXHAUSTED}. */
    private static final Pattern CODE_NAME = Pattern.compile("[A-Z][A-Z_]*");

    /** The {@code retryDelay} of a {@code RetryInfo} as the SDK writes it into its exception's message. */
    private static final Pattern RETRY_DELAY_IN_MESSAGE = Pattern.compile(
            "\"@type\":\"" + Pattern.quote(RETRY_INFO) + "\".*?\"retryDelay\":\"([^\"]*)\"");

    private GoogleFailures() {
    }

    /**
     * Returns the typed failure of an error Gemini answered.
     *
     * @param code the HTTP code, or the error's own {@code code} for an error sent in a stream
     * @param error the error, as its body says it
     * @param retryAfterHeader the wait the response's headers ask for, which comes before the body's
     * @param retryRefused whether the response's headers refuse a retry
     *     ({@link dev.inference.failure.ShouldRetryHeader#refusesRetry}), which makes it permanent
     * @return the status failure, retryable as the error's status (or else its code) says
     */
    static HttpStatusException typed(int code, Error error, Optional<Duration> retryAfterHeader,
            boolean retryRefused) {
        Duration retryAfter = retryAfterHeader.or(error::retryDelay).orElse(null);
        String message = "Google answered " + code + ((error.status() != null) ? " " + error.status() : "");
        if (retryRefused) {
            return new HttpStatusException(code, message, retryAfter, null, true);
        }
        HttpStatusException byCode = new HttpStatusException(code, message, retryAfter);
        String status = error.status();
        if (status == null) {
            return byCode;
        }
        boolean codeIsRetried = Classification.isRetryable(byCode);
        OptionalInt transientStatus = ProviderErrorTypes.transientStatus(status);
        if (transientStatus.isPresent()) {
            return codeIsRetried ? byCode : new HttpStatusException(transientStatus.getAsInt(), message, retryAfter);
        }
        // A permanent status with a code that would be retried stands for the status the table gives it.
        return codeIsRetried ? new HttpStatusException(ProviderErrorTypes.status(status).orElse(400), message, null)
                : byCode;
    }

    /**
     * Returns the exception the SDK throws for a response with an error status, with the typed failure
     * as its cause. Reads and consumes the response's body; the caller closes the response.
     *
     * @param response the response
     * @param typed its typed failure
     * @return the SDK's {@code ClientException}, {@code ServerException} or {@code ApiException}
     */
    static RuntimeException statusException(Response response, HttpStatusException typed) {
        try {
            ApiException.throwFromResponse(response);
        }
        catch (ApiException ex) {
            return TypedFailures.withTypedCause(ex, typed);
        }
        return typed;
    }

    /**
     * Returns the exception the SDK throws for an error event of a stream, with the typed failure as
     * its cause.
     *
     * @param event the event's JSON, an object with an {@code error} member
     * @param code the error's code
     * @param typed its typed failure
     * @return the SDK's exception
     */
    static RuntimeException inBandException(JsonNode event, int code, HttpStatusException typed) {
        ArrayNode events = JSON.createArrayNode().add(event);
        try {
            ApiException.throwFromErrorNode(events, code);
        }
        catch (ApiException ex) {
            return TypedFailures.withTypedCause(ex, typed);
        }
        return typed;
    }

    /**
     * Returns the exception the SDK throws when its transport fails, with a {@link NetworkException}
     * between it and the transport's failure.
     *
     * @param thrown what the transport threw
     * @return the SDK's {@link GenAiIOException}
     */
    static GenAiIOException networkFailure(IOException thrown) {
        return new GenAiIOException("Failed to execute HTTP request.", TypedFailures.network(thrown));
    }

    /**
     * Makes the translator of the SDK's exceptions, for a chat model of the application's own on the SDK,
     * which the proxy retries above its exchange: {@link ApiException} with its code, its status when it
     * is one Gemini sends, and the {@code retryDelay} that the SDK copies into its message; and
     * {@link GenAiIOException}.
     *
     * @return the translator
     */
    static ChatModelFailureTranslator translator() {
        return GoogleFailures::translate;
    }

    private static Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof ApiException api) {
            // Outside a stream, the SDK's status is the response's reason phrase, not a google.rpc.Code name.
            String status = (api.status() != null && CODE_NAME.matcher(api.status()).matches()) ? api.status() : null;
            Optional<Duration> retryDelay = retryDelayIn(api.getMessage());
            HttpStatusException typed = typed(api.code(), new Error(null, status, retryDelay), Optional.empty(), false);
            typed.initCause(failure);
            return Optional.of(typed);
        }
        if (failure instanceof GenAiIOException && failure.getCause() instanceof IOException) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    private static Optional<Duration> retryDelayIn(@Nullable String message) {
        if (message == null) {
            return Optional.empty();
        }
        Matcher matcher = RETRY_DELAY_IN_MESSAGE.matcher(message);
        return matcher.find() ? RetryAfter.parseProtoDuration(matcher.group(1)) : Optional.empty();
    }

    /**
     * A Gemini error, as its JSON says it.
     *
     * @param code its {@code code}, or {@code null} when it has none
     * @param status its {@code status}, such as {@code RESOURCE_EXHAUSTED}, or {@code null}
     * @param retryDelay the {@code retryDelay} of its {@code google.rpc.RetryInfo}, if it has a positive one
     */
    record Error(@Nullable Integer code, @Nullable String status, Optional<Duration> retryDelay) {

        /** No error object, or none that could be read. */
        static final Error NONE = new Error(null, null, Optional.empty());

        /**
         * Reads an error body.
         *
         * @param body the body's bytes
         * @return the error, or {@link #NONE} when the body is not JSON with an {@code error} object
         */
        static Error parse(byte[] body) {
            try {
                return of(JSON.readTree(body));
            }
            catch (IOException | RuntimeException notJson) {
                return NONE;
            }
        }

        /**
         * Reads the {@code error} object of a body or an event.
         *
         * @param root the body's or the event's JSON
         * @return the error, or {@link #NONE} when there is no {@code error} object
         */
        static Error of(@Nullable JsonNode root) {
            JsonNode error = (root != null) ? root.get("error") : null;
            if (error == null || !error.isObject()) {
                return NONE;
            }
            JsonNode code = error.get("code");
            JsonNode status = error.get("status");
            return new Error((code != null && code.canConvertToInt()) ? code.intValue() : null,
                    (status != null && status.isTextual()) ? status.textValue() : null,
                    retryDelay(error.get("details")));
        }

        /** Tells whether a JSON object is an error: it has an {@code error} object. */
        static boolean isError(@Nullable JsonNode root) {
            JsonNode error = (root != null) ? root.get("error") : null;
            return error != null && error.isObject();
        }

        private static Optional<Duration> retryDelay(@Nullable JsonNode details) {
            if (details == null || !details.isArray()) {
                return Optional.empty();
            }
            for (JsonNode detail : details) {
                JsonNode type = detail.get("@type");
                JsonNode delay = detail.get("retryDelay");
                if (type != null && RETRY_INFO.equals(type.asText()) && delay != null && delay.isTextual()) {
                    return RetryAfter.parseProtoDuration(delay.textValue());
                }
            }
            return Optional.empty();
        }
    }
}
