package dev.inference.failure;

import java.time.Duration;
import java.util.Objects;

/**
 * One attempt ran past its own timeout ({@code attempt-timeout}, or {@code first-token-timeout} for a
 * stream not yet established) and was abandoned: its request was cancelled, its connection released
 * and nothing of it reached the caller. A {@link NetworkException}, so it is retried like any
 * transport failure, on the backoff schedule (it carries no {@code Retry-After} and sets no
 * cool-down); its metrics {@code error} tag is {@code attempt_timeout}.
 *
 * <p>Never thrown when the caller's own deadline or cancellation came first: the call then ends with
 * a {@link DeadlineExceededException} or a {@link java.util.concurrent.CancellationException}.
 *
 * <p>Trap: it has no cause on purpose. What the abandoned attempt threw (typically a cancellation,
 * since aborting the request is how the attempt was abandoned) is attached as
 * {@linkplain #getSuppressed() suppressed}: a cancellation in the cause chain would make the failure
 * permanent.
 */
public class AttemptTimeoutException extends NetworkException {

    private static final long serialVersionUID = 1L;

    /** The timeout that passed. */
    private final Duration timeout;

    /**
     * Creates the exception.
     *
     * @param message what timed out, for people, such as
     *     {@code "The attempt ran past its timeout of PT30S and was abandoned"}
     * @param timeout the timeout that passed, positive
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public AttemptTimeoutException(String message, Duration timeout) {
        super(Objects.requireNonNull(message, "message must not be null"), null);
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        this.timeout = timeout;
    }

    /**
     * Creates the exception for an attempt abandoned at its timeout, with the message that the
     * library's own integrations give it, such as
     * {@code "The attempt ran past its timeout of PT30S and was abandoned"}.
     *
     * @param timeout the timeout that passed, positive
     * @throws NullPointerException if {@code timeout} is {@code null}
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public AttemptTimeoutException(Duration timeout) {
        this("The attempt ran past its timeout of " + Objects.requireNonNull(timeout, "timeout must not be null")
                + " and was abandoned", timeout);
    }

    /**
     * Returns the timeout that the attempt ran past.
     *
     * @return the timeout, positive
     */
    public Duration timeout() {
        return this.timeout;
    }
}
