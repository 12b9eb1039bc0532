package dev.inference.retry.springai.exchange;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.RetryAfter;
import dev.inference.failure.ShouldRetryHeader;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one place where this module builds the core's typed failures from what a provider answered, and
 * puts them where the retry decisions find them.
 *
 * <p>The decisions classify a failure by the first typed failure in its cause chain
 * ({@link HttpStatusException} or {@link NetworkException}), while the caller must get the exception
 * the model's own client throws (on exhaustion, as the cause of the
 * {@link dev.inference.retry.ExhaustedException}). So every failure here is the client's exception with
 * the typed failure beneath it: built with the SDK's own builders around it ({@link #byStatus},
 * {@link #asNetworkFailure}), or attached as its cause ({@link #withTypedCause}).
 */
public final class TypedFailures {

    private TypedFailures() {
    }

    /**
     * Returns the typed failure of a response whose status is 400 or more. Reads the headers only.
     *
     * @param status the response's status
     * @param header the response's first value of a header, or {@code null} when it has none
     * @param clock the clock that says what "now" is for a {@code Retry-After} date
     * @return the status failure with the wait the provider asked for (see {@link RetryAfter#fromHeaders}),
     *     permanent when the provider refused a retry ({@link ShouldRetryHeader#refusesRetry})
     */
    public static HttpStatusException status(int status, Function<String, @Nullable String> header, Clock clock) {
        return new HttpStatusException(status, "The provider answered HTTP " + status,
                RetryAfter.fromHeaders(header, clock).orElse(null), null, ShouldRetryHeader.refusesRetry(header));
    }

    /**
     * Returns the typed failure of a response whose status is 400 or more, with the exception a client
     * made for it as its cause.
     *
     * @param status the response's status code
     * @param header the response's first value of a header, or {@code null} when it has none (or its
     *     headers are unknown)
     * @param clock what "now" is for a {@code Retry-After} date
     * @param failure the client's exception, made the cause
     * @return the status failure; empty when {@code status} is not an HTTP status code, which no
     *     translation can describe
     */
    public static Optional<RuntimeException> status(int status, Function<String, @Nullable String> header,
            Clock clock, Throwable failure) {
        if (status < 100 || status > 999) {
            return Optional.empty();
        }
        HttpStatusException typed = status(status, header, clock);
        typed.initCause(failure);
        return Optional.of(typed);
    }

    /**
     * Returns the typed failure of a response with an error status whose headers are unknown.
     *
     * @param status the response's status code, from 100 to 999
     * @param failure the client's exception, made the cause
     * @return the status failure, with no {@code Retry-After}
     */
    public static HttpStatusException status(int status, Throwable failure) {
        HttpStatusException typed = new HttpStatusException(status, "The provider answered HTTP " + status, null);
        typed.initCause(failure);
        return typed;
    }

    /**
     * Returns the failure of an exchange that broke before a complete answer (connection refused or
     * reset, timeout, a response cut before its status).
     *
     * @param failure what the transport threw, made the cause
     * @return a network failure with the transport's message
     */
    public static NetworkException network(Throwable failure) {
        return network(failure.getMessage(), failure);
    }

    private static NetworkException network(@Nullable String message, @Nullable Throwable cause) {
        return new NetworkException((message != null) ? message : "The exchange with the provider failed", cause);
    }

    /**
     * Returns the typed failure of an error a provider sent in-band, before any content.
     *
     * @param type the error's type, if it has one
     * @param code the error's code, if it has one
     * @return a retryable {@link HttpStatusException} when the error is transient, as
     *     {@link ProviderErrorTypes#transientStatus(String, String)} decides, or {@code null} when it is
     *     permanent
     */
    public static @Nullable HttpStatusException inBand(@Nullable String type, @Nullable String code) {
        OptionalInt status = ProviderErrorTypes.transientStatus(type, code);
        return status.isEmpty() ? null : new HttpStatusException(status.getAsInt(),
                "The provider sent a " + type + " error in the stream before any content", null);
    }

    /**
     * Picks the exception a Stainless SDK's error handler throws for a retryable status, as both the
     * OpenAI and the Anthropic SDK pick it: their rate limit exception for 429, their internal server
     * exception for 500 to 599, their unexpected status exception for any other (408).
     *
     * @param <E> the SDK's service exception type
     * @param status the retryable status
     * @param rateLimited builds the rate limit exception
     * @param serverError builds the internal server exception for a status
     * @param unexpected builds the unexpected status exception for a status
     * @return the exception built
     */
    public static <E extends RuntimeException> E byStatus(int status, Supplier<? extends E> rateLimited,
            IntFunction<? extends E> serverError, IntFunction<? extends E> unexpected) {
        if (status == 429) {
            return rateLimited.get();
        }
        return (status >= 500 && status <= 599) ? serverError.apply(status) : unexpected.apply(status);
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
    public static <E extends RuntimeException> E asNetworkFailure(E thrown,
            BiFunction<@Nullable String, Throwable, E> copy) {
        E failure = copy.apply(thrown.getMessage(), network(thrown.getMessage(), thrown.getCause()));
        failure.setStackTrace(thrown.getStackTrace());
        for (Throwable suppressed : thrown.getSuppressed()) {
            failure.addSuppressed(suppressed);
        }
        return failure;
    }

    /**
     * Attaches a typed failure to the exception a client made for it, so that the retry decisions can
     * classify that exception.
     *
     * <p>The exceptions the clients make for a status (Spring AI's {@code TransientAiException} and
     * {@code NonTransientAiException}, {@code WebClientResponseException}) have no cause of their own:
     * the typed failure becomes their cause, as {@code WebClient} itself gives such an exception the
     * failure it stands for. An exception that already has a cause is left as it is and becomes the
     * cause of the typed failure instead, which is then what the decisions and the caller get.
     *
     * @param thrown the client's exception, not yet thrown to anyone
     * @param typed the typed failure it stands for, which has no cause yet
     * @return {@code thrown} with {@code typed} as its cause, or {@code typed} with {@code thrown} as its
     *     cause
     */
    public static RuntimeException withTypedCause(RuntimeException thrown, RuntimeException typed) {
        if (thrown.getCause() == null) {
            try {
                thrown.initCause(typed);
                return thrown;
            }
            catch (IllegalStateException causeSetToNull) {
                // Its constructor was given a null cause: it can have no other.
            }
        }
        typed.initCause(thrown);
        return typed;
    }

    /**
     * Returns the first of a header's values.
     *
     * @param values the header's values, as an SDK lists them
     * @return the first value, or {@code null} when there is none
     */
    public static @Nullable String first(List<String> values) {
        return values.isEmpty() ? null : values.get(0);
    }
}
