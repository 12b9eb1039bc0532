package dev.inference.retry;

import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import java.time.Duration;
import java.util.Optional;

/**
 * The reader a decorator returns for an established stream: the inner reader, with the attempts the
 * call made stamped on its result. A {@link RetryClient} stamps its establishment attempts; a fallback
 * chain adds the attempts of the members before the one that answered to that member's own
 * ({@link #addingEarlier}). Thread-safe as far as the inner reader is.
 */
public final class StampedStreamReader implements StreamReader {

    private final StreamReader delegate;

    private final int attempts;

    /** Whether {@link #attempts} are added to the inner result's, rather than replacing them. */
    private final boolean earlier;

    StampedStreamReader(StreamReader delegate, int attempts) {
        this(delegate, attempts, false);
    }

    private StampedStreamReader(StreamReader delegate, int attempts, boolean earlier) {
        this.delegate = delegate;
        this.attempts = attempts;
        this.earlier = earlier;
    }

    /**
     * Returns a reader whose result counts {@code earlierAttempts} more attempts than the inner
     * reader's own (counted as at least one).
     *
     * @param delegate the inner reader, which the returned one reads and closes
     * @param earlierAttempts the attempts made before the inner reader's call
     * @return the reader
     */
    public static StampedStreamReader addingEarlier(StreamReader delegate, int earlierAttempts) {
        return new StampedStreamReader(delegate, earlierAttempts, true);
    }

    @Override
    public boolean hasNext() {
        return this.delegate.hasNext();
    }

    @Override
    public StreamEvent next() {
        return this.delegate.next();
    }

    @Override
    public StreamResult result() {
        StreamResult result = this.delegate.result();
        return result.withAttempts(this.earlier ? Math.max(1, result.attempts()) + this.attempts : this.attempts);
    }

    @Override
    public Optional<Duration> rateLimitedFor() {
        return this.delegate.rateLimitedFor();
    }

    @Override
    public void close() {
        this.delegate.close();
    }

    @Override
    public String toString() {
        return "StampedStreamReader[" + (this.earlier ? "earlierAttempts=" : "attempts=") + this.attempts
                + ", delegate=" + this.delegate + "]";
    }
}
