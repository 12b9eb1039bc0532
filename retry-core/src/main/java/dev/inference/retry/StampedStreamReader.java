package dev.inference.retry;

import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import java.time.Duration;
import java.util.Optional;

/**
 * The reader a {@link RetryClient} returns for an established stream: the inner reader, with the
 * establishment attempts stamped on its result.
 */
final class StampedStreamReader implements StreamReader {

    private final StreamReader delegate;

    private final int attempts;

    StampedStreamReader(StreamReader delegate, int attempts) {
        this.delegate = delegate;
        this.attempts = attempts;
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
        return this.delegate.result().withAttempts(this.attempts);
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
        return "StampedStreamReader[attempts=" + this.attempts + ", delegate=" + this.delegate + "]";
    }
}
