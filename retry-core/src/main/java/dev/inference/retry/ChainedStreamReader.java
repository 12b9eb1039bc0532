package dev.inference.retry;

import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import java.time.Duration;
import java.util.Optional;

/**
 * The reader a {@link FallbackClient} returns when members before the answering one made attempts:
 * the member's reader, with those attempts added to its result's.
 */
final class ChainedStreamReader implements StreamReader {

    private final StreamReader delegate;

    private final int earlierAttempts;

    ChainedStreamReader(StreamReader delegate, int earlierAttempts) {
        this.delegate = delegate;
        this.earlierAttempts = earlierAttempts;
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
        return result.withAttempts(Math.max(1, result.attempts()) + this.earlierAttempts);
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
        return "ChainedStreamReader[" + this.delegate + ", earlierAttempts=" + this.earlierAttempts + "]";
    }
}
