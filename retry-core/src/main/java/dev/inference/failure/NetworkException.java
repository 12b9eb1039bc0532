package dev.inference.failure;

import org.jspecify.annotations.Nullable;

/**
 * The transport failed before a complete response arrived: the connection was refused or reset,
 * it timed out, or the stream ended early. Retryable, unless its cause chain holds a cancellation
 * or a deadline.
 */
public class NetworkException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, for people; must not hold credentials
     * @param cause the transport's own exception, or {@code null}
     */
    public NetworkException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
