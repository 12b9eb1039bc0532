package dev.inference.failure;

import java.time.Duration;
import java.util.Objects;

/**
 * An established stream stayed silent for longer than its {@code stream-idle-timeout}: no event
 * other than keep-alives (a {@code ping}, an SSE comment) arrived in that time. The stream's
 * connection has been closed, and this failure ends the stream: it is thrown from the reader
 * ({@code hasNext()}, a {@code Flux}'s error) and reported by its result.
 *
 * <p>Never retried, as no failure after a stream's establishment is: the caller has already seen
 * part of the answer, and a retry would repeat it. It is therefore not a {@link NetworkException}
 * and has no cause, so that no classification can take it for a transport failure; what closing
 * the stream threw, if anything, is attached as {@linkplain #getSuppressed() suppressed}.
 */
public class StreamStalledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The idle timeout that passed. */
    private final Duration idleTimeout;

    /**
     * Creates the exception.
     *
     * @param message what stalled, for people, such as
     *     {@code "The stream sent nothing for longer than its stream-idle-timeout of PT30S"}
     * @param idleTimeout the idle timeout that passed, positive
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
     */
    public StreamStalledException(String message, Duration idleTimeout) {
        super(Objects.requireNonNull(message, "message must not be null"));
        Objects.requireNonNull(idleTimeout, "idleTimeout must not be null");
        if (idleTimeout.isZero() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
        }
        this.idleTimeout = idleTimeout;
    }

    /**
     * Returns the longest silence the stream was allowed.
     *
     * @return the idle timeout, positive
     */
    public Duration idleTimeout() {
        return this.idleTimeout;
    }
}
