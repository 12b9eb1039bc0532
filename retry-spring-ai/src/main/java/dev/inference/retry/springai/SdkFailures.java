package dev.inference.retry.springai;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.RetryAfter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What every provider SDK's failures have in common, as the retry decisions classify them: the typed
 * failure of a status and its {@code Retry-After}, the status an in-band error type stands for, and an
 * SDK's I/O exception with a {@link NetworkException} in its cause chain. The SDK-specific classes
 * ({@link OpenAiFailures}, {@link AnthropicFailures}) build each SDK's own exceptions around these.
 */
final class SdkFailures {

    /** The header in which OpenAI and Anthropic give their wait in milliseconds, read before {@code Retry-After}. */
    static final String RETRY_AFTER_MS = "retry-after-ms";

    static final String RETRY_AFTER = "Retry-After";

    /** Error types that say "try again later" when a stream reports them before any content. */
    private static final Set<String> RATE_LIMITED = Set.of("rate_limit", "rate_limit_error", "rate_limit_exceeded");

    private static final Set<String> SERVER_ERRORS = Set.of("server_error", "api_error", "internal_error");

    private static final Set<String> OVERLOADED = Set.of("overloaded", "overloaded_error", "server_overloaded");

    private SdkFailures() {
    }

    /**
     * Returns the typed failure of a response whose status is 400 or more. Reads the headers only.
     *
     * @param status the response's status
     * @param headers the response's header values by name
     * @param clock the clock that says what "now" is for a {@code Retry-After} date
     * @return the status failure with the provider's {@code Retry-After}, if any
     */
    static HttpStatusException statusFailure(int status, Function<String, List<String>> headers, Clock clock) {
        return new HttpStatusException(status, "The provider answered HTTP " + status,
                retryAfter(headers, clock).orElse(null));
    }

    /**
     * Reads the wait a provider asked for: {@code retry-after-ms} first, then {@code Retry-After}.
     *
     * @param headers the response's header values by name
     * @param clock the clock for an HTTP-date
     * @return the positive wait, or empty when the headers ask for none (or garbage)
     */
    static Optional<Duration> retryAfter(Function<String, List<String>> headers, Clock clock) {
        Optional<Duration> millis = RetryAfter.parseMillis(first(headers.apply(RETRY_AFTER_MS)));
        return millis.isPresent() ? millis : RetryAfter.parse(first(headers.apply(RETRY_AFTER)), clock);
    }

    /**
     * Picks the exception an SDK's error handler throws for a retryable status, as both SDKs' handlers
     * pick it: their rate limit exception for 429, their internal server exception for 500 to 599, their
     * unexpected status exception for any other (408).
     *
     * @param <E> the SDK's service exception type
     * @param status the retryable status
     * @param rateLimited builds the rate limit exception
     * @param serverError builds the internal server exception for a status
     * @param unexpected builds the unexpected status exception for a status
     * @return the exception built
     */
    static <E extends RuntimeException> E byStatus(int status, Supplier<? extends E> rateLimited,
            IntFunction<? extends E> serverError, IntFunction<? extends E> unexpected) {
        if (status == 429) {
            return rateLimited.get();
        }
        return (status >= 500 && status <= 599) ? serverError.apply(status) : unexpected.apply(status);
    }

    /**
     * Returns the typed failure of an error a provider sent in-band, before any content.
     *
     * @param type the error's type, if it has one
     * @param code the error's code, if it has one
     * @return a retryable {@link HttpStatusException} when the type or the code is transient (rate limit:
     *     429, server error: 500, overloaded: 503), or {@code null} when the error is permanent
     */
    static @Nullable HttpStatusException inBandFailure(@Nullable String type, @Nullable String code) {
        int status = transientStatus(type, code);
        return (status == 0) ? null : new HttpStatusException(status,
                "The provider sent a " + type + " error in the stream before any content", null);
    }

    /**
     * Returns an SDK's I/O exception as the SDK threw it, with a {@link NetworkException} in its cause
     * chain: a copy with the same class, message, stack trace and suppressed exceptions, whose cause is
     * a {@link NetworkException} caused by the original cause (the {@link java.io.IOException}).
     *
     * @param <E> the SDK's I/O exception type
     * @param thrown what the SDK's transport threw
     * @param copy the exception's constructor taking a message and a cause
     * @return the copy, which classifies as a network failure
     */
    static <E extends RuntimeException> E asNetworkFailure(E thrown, BiFunction<@Nullable String, Throwable, E> copy) {
        String message = (thrown.getMessage() != null) ? thrown.getMessage() : "The request failed";
        E failure = copy.apply(thrown.getMessage(), new NetworkException(message, thrown.getCause()));
        failure.setStackTrace(thrown.getStackTrace());
        for (Throwable suppressed : thrown.getSuppressed()) {
            failure.addSuppressed(suppressed);
        }
        return failure;
    }

    private static int transientStatus(@Nullable String type, @Nullable String code) {
        for (String each : new String[] { type, code }) {
            if (each == null) {
                continue;
            }
            String kind = each.toLowerCase(Locale.ROOT);
            if (RATE_LIMITED.contains(kind)) {
                return 429;
            }
            if (SERVER_ERRORS.contains(kind)) {
                return 500;
            }
            if (OVERLOADED.contains(kind)) {
                return 503;
            }
        }
        return 0;
    }

    private static @Nullable String first(List<String> values) {
        return values.isEmpty() ? null : values.get(0);
    }
}
