package dev.inference.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A reader over an established stream of events.
 *
 * <p>Events are read with {@link #hasNext()} and {@link #next()}. A failure in mid-stream is thrown
 * from either as the typed failure and ends the stream; it is never retried, because the caller may
 * already have consumed part of the output. Once the stream has ended, normally or by failure,
 * {@link #result()} tells how. A reader is meant for one consuming thread; {@link #close()} may be
 * called from any thread.
 */
public interface StreamReader extends AutoCloseable {

    /**
     * Tells whether another event is available, blocking until one arrives or the stream ends.
     *
     * @return {@code true} if {@link #next()} will return an event, {@code false} once the stream
     *     has ended normally
     * @throws RuntimeException the typed failure that ended the stream
     */
    boolean hasNext();

    /**
     * Returns the next event.
     *
     * @return the event
     * @throws java.util.NoSuchElementException if the stream has ended normally
     * @throws RuntimeException the typed failure that ended the stream
     */
    StreamEvent next();

    /**
     * Returns how the stream ended.
     *
     * @return the terminal result
     * @throws IllegalStateException if the stream has not ended yet
     */
    StreamResult result();

    /**
     * Returns how long the rate-limit headers of the response that opened the stream say the
     * provider account's limit stays exhausted, so that a retry layer can hold the account's other
     * callers off (see {@code dev.inference.failure.RateLimitHeaders}). Known once the stream is
     * established; never changes afterwards.
     *
     * @return the time until the limit resets, or empty (as by default) when no limit is exhausted
     *     or the transport does not read such headers
     */
    default Optional<Duration> rateLimitedFor() {
        return Optional.empty();
    }

    /**
     * Releases the stream's resources. Idempotent; never throws a checked exception.
     */
    @Override
    void close();
}
