package dev.inference.retry.springai;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Builds the core's typed failures for the built-in {@link ChatModelFailureTranslator}s, each with the
 * client's exception as its cause.
 */
final class TypedFailures {

    private TypedFailures() {
    }

    /**
     * Returns the failure of a response with an error status.
     *
     * @param status the response's status code
     * @param header the response's first value of a header, or {@code null} when it has none
     * @param clock what "now" is for a {@code Retry-After} date
     * @param failure the client's exception, made the cause
     * @return the status failure with the wait the provider asked for, if any; empty when {@code status}
     *     is not an HTTP status code, which no translation can describe
     */
    static Optional<RuntimeException> status(int status, Function<String, @Nullable String> header, Clock clock,
            Throwable failure) {
        if (status < 100 || status > 999) {
            return Optional.empty();
        }
        HttpStatusException typed = new HttpStatusException(status, "The provider answered HTTP " + status,
                retryAfter(header, clock).orElse(null));
        typed.initCause(failure);
        return Optional.of(typed);
    }

    /**
     * Returns the failure of a response with an error status whose headers are unknown.
     *
     * @param status the response's status code, from 100 to 999
     * @param failure the client's exception, made the cause
     * @return the status failure, with no {@code Retry-After}
     */
    static RuntimeException status(int status, Throwable failure) {
        HttpStatusException typed = new HttpStatusException(status, "The provider answered HTTP " + status, null);
        typed.initCause(failure);
        return typed;
    }

    /**
     * Returns the failure of an exchange that broke before a complete answer.
     *
     * @param failure the client's exception, made the cause
     * @return the network failure
     */
    static RuntimeException network(Throwable failure) {
        return new NetworkException("The exchange with the provider failed: " + failure, failure);
    }

    /**
     * Returns the first of a header's values.
     *
     * @param values the header's values, as an SDK lists them
     * @return the first value, or {@code null} when there is none
     */
    static @Nullable String first(List<String> values) {
        return values.isEmpty() ? null : values.get(0);
    }

    /** The wait a provider asked for, read as {@link SdkFailures#retryAfter} reads it. */
    private static Optional<Duration> retryAfter(Function<String, @Nullable String> header, Clock clock) {
        return SdkFailures.retryAfter((name) -> {
            String value = header.apply(name);
            return (value != null) ? List.of(value) : List.of();
        }, clock);
    }
}
