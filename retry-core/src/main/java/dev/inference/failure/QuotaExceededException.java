package dev.inference.failure;

import java.util.Objects;

/**
 * The provider refused the request because the account's quota is used up, such as OpenAI's 429
 * with the error code {@code insufficient_quota}: not a rate limit that passes, but a limit that
 * holds until someone changes the account's plan or billing. Never retryable, and it cools nothing
 * down, since no wait helps; its message is the provider's own, for the people who must act on it.
 *
 * <p>Which errors are quota errors is {@link ProviderErrorTypes#isQuotaExceeded}'s to say.
 * Distinct from {@link HttpStatusException}, so that code that handles a 429 by waiting does not
 * wait for this one.
 */
public class QuotaExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The HTTP status the provider answered with, such as 429. */
    private final int status;

    /** The provider's error code, such as {@code insufficient_quota}. */
    private final String code;

    /**
     * Creates the exception.
     *
     * @param status the HTTP status the provider answered with, from 100 to 999 (429 for OpenAI)
     * @param code the provider's error code, such as {@code insufficient_quota}
     * @param message what the provider said, for people; must not hold credentials
     * @throws NullPointerException if {@code code} or {@code message} is {@code null}
     * @throws IllegalArgumentException if {@code status} is not a three-digit code
     */
    public QuotaExceededException(int status, String code, String message) {
        super(Objects.requireNonNull(message, "message must not be null"));
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a three-digit HTTP status code, was " + status);
        }
        this.status = status;
        this.code = Objects.requireNonNull(code, "code must not be null");
    }

    /**
     * Returns the HTTP status the provider answered with.
     *
     * @return the status, such as 429
     */
    public int status() {
        return this.status;
    }

    /**
     * Returns the provider's error code.
     *
     * @return the code, such as {@code insufficient_quota}
     */
    public String code() {
        return this.code;
    }
}
