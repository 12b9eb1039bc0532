package dev.inference.failure;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The provider answered with an error status. Retryable for 408 (request timeout), 429 (too many
 * requests) and 500 to 599 (server errors); permanent for every other status, in particular 400,
 * 401 and 403, which no retry can mend.
 *
 * <p>Besides the wait it asks for ({@code Retry-After}), the response may say that the account's
 * rate limit is exhausted ({@link #rateLimitedFor()}, read by {@link RateLimitHeaders}): a retry
 * layer with a shared cool-down then holds every caller of the account off that long, whatever the
 * status.
 *
 * <p>The provider may also say that the request must not be retried, whatever its status (the
 * header {@code x-should-retry: false} of OpenAI and Anthropic, read by {@link ShouldRetryHeader}):
 * such a failure is {@linkplain #retryRefused() permanent}.
 */
public class HttpStatusException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The HTTP status the provider answered with. */
    private final int status;

    /** How long the provider asked to wait before the next request, or {@code null} when it did not say. */
    private final @Nullable Duration retryAfter;

    /** How long the response's rate-limit headers said the account's limit stays used up, or {@code null}. */
    private final @Nullable Duration rateLimitedFor;

    /**
     * Creates the exception.
     *
     * @param status the HTTP status code, from 100 to 999
     * @param message what the provider said, for people; must not hold credentials
     * @param retryAfter how long the provider asked the client to wait (from {@code Retry-After} or
     *     {@code retry-after-ms}, see {@link RetryAfter}), or {@code null} when it did not ask
     * @throws IllegalArgumentException if {@code status} is not a three-digit code
     */
    public HttpStatusException(int status, String message, @Nullable Duration retryAfter) {
        this(status, message, retryAfter, null);
    }

    /** Whether the provider said that the request must not be retried. */
    private final boolean retryRefused;

    /**
     * Creates the exception for a response whose rate-limit headers say how long the account's
     * limit stays exhausted.
     *
     * @param status the HTTP status code, from 100 to 999
     * @param message what the provider said, for people; must not hold credentials
     * @param retryAfter how long the provider asked the client to wait, or {@code null} when it did
     *     not ask
     * @param rateLimitedFor how long the response's rate-limit headers say no requests or no tokens
     *     remain (see {@link RateLimitHeaders#exhaustedFor}), or {@code null} when they say none is
     *     exhausted
     * @throws IllegalArgumentException if {@code status} is not a three-digit code
     */
    public HttpStatusException(int status, String message, @Nullable Duration retryAfter,
            @Nullable Duration rateLimitedFor) {
        this(status, message, retryAfter, rateLimitedFor, false);
    }

    /**
     * Creates the exception for a response that may also say it must not be retried.
     *
     * @param status the HTTP status code, from 100 to 999
     * @param message what the provider said, for people; must not hold credentials
     * @param retryAfter how long the provider asked the client to wait, or {@code null} when it did
     *     not ask
     * @param rateLimitedFor how long the response's rate-limit headers say no requests or no tokens
     *     remain, or {@code null} when they say none is exhausted
     * @param retryRefused whether the provider said the request must not be retried (see
     *     {@link ShouldRetryHeader#refusesRetry}); {@code true} makes the failure permanent whatever
     *     its status
     * @throws IllegalArgumentException if {@code status} is not a three-digit code
     */
    public HttpStatusException(int status, String message, @Nullable Duration retryAfter,
            @Nullable Duration rateLimitedFor, boolean retryRefused) {
        super(message);
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a three-digit HTTP status code, was " + status);
        }
        this.status = status;
        this.retryAfter = retryAfter;
        this.rateLimitedFor = rateLimitedFor;
        this.retryRefused = retryRefused;
    }

    /**
     * Returns the HTTP status code.
     *
     * @return the status
     */
    public int status() {
        return this.status;
    }

    /**
     * Returns how long the provider asked the client to wait before trying again.
     *
     * @return the provider's delay, or empty when it gave none
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(this.retryAfter);
    }

    /**
     * Returns how long the response's rate-limit headers say the account's limit stays exhausted.
     *
     * @return the time until the reset, or empty when the transport read no exhausted limit
     */
    public Optional<Duration> rateLimitedFor() {
        return Optional.ofNullable(this.rateLimitedFor);
    }

    /**
     * Tells whether the provider said that this request must not be retried, such as with
     * {@code x-should-retry: false}: the failure is then permanent, whatever its status.
     *
     * @return {@code true} when the provider refused a retry
     */
    public boolean retryRefused() {
        return this.retryRefused;
    }
}
