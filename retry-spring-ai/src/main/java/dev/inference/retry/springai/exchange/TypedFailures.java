package dev.inference.retry.springai.exchange;

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

    /** The header in which OpenAI and Anthropic give their wait in milliseconds, read before {@code Retry-After}. */
    static final String RETRY_AFTER_MS = "retry-after-ms";

    static final String RETRY_AFTER = "Retry-After";

    /** Error types that say "try again later" when a stream reports them before any content. */
    private static final Set<String> RATE_LIMITED = Set.of("rate_limit", "rate_limit_error", "rate_limit_exceeded");

    private static final Set<String> SERVER_ERRORS = Set.of("server_error", "api_error", "internal_error");

    private static final Set<String> OVERLOADED = Set.of("overloaded", "overloaded_error", "server_overloaded");

    private TypedFailures() {
    }

    /**
     * Returns the typed failure of a response whose status is 400 or more. Reads the headers only.
     *
     * @param status the response's status
     * @param header the response's first value of a header, or {@code null} when it has none
     * @param clock the clock that says what "now" is for a {@code Retry-After} date
     * @return the status failure with the wait the provider asked for, from {@code retry-after-ms}, else
     *     {@code Retry-After}
     */
    public static HttpStatusException status(int status, Function<String, @Nullable String> header, Clock clock) {
        return new HttpStatusException(status, "The provider answered HTTP " + status,
                retryAfter(header, clock).orElse(null));
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
     * @return a retryable {@link HttpStatusException} when the type or the code is transient (rate limit:
     *     429, server error: 500, overloaded: 503), or {@code null} when the error is permanent
     */
    public static @Nullable HttpStatusException inBand(@Nullable String type, @Nullable String code) {
        int status = transientStatus(type, code);
        return (status == 0) ? null : new HttpStatusException(status,
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

    /** The wait a provider asked for: {@code retry-after-ms} first, then {@code Retry-After}. */
    private static Optional<Duration> retryAfter(Function<String, @Nullable String> header, Clock clock) {
        Optional<Duration> millis = RetryAfter.parseMillis(header.apply(RETRY_AFTER_MS));
        return millis.isPresent() ? millis : RetryAfter.parse(header.apply(RETRY_AFTER), clock);
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
}
