package dev.inference.sample.reliability;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Passes every call to another client and keeps every {@link StreamReader} it hands out, whether
 * returned or carried by a {@link HalfOpenStreamException}, so that a test can check that each one
 * was closed.
 */
final class TrackingClient implements InferenceClient {

    private final InferenceClient inner;

    private final List<TrackedReader> readers = new CopyOnWriteArrayList<>();

    TrackingClient(InferenceClient inner) {
        this.inner = inner;
    }

    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        return this.inner.invoke(request, context);
    }

    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        try {
            return track(this.inner.stream(request, context));
        }
        catch (HalfOpenStreamException halfOpen) {
            throw new HalfOpenStreamException(track(halfOpen.reader()), halfOpen.getCause());
        }
    }

    private StreamReader track(StreamReader reader) {
        TrackedReader tracked = new TrackedReader(reader);
        this.readers.add(tracked);
        return tracked;
    }

    /** How many of the readers handed out were never closed. */
    long unclosedReaders() {
        return this.readers.stream().filter((reader) -> !reader.closed.get()).count();
    }

    private static final class TrackedReader implements StreamReader {

        private final StreamReader reader;

        private final AtomicBoolean closed = new AtomicBoolean();

        TrackedReader(StreamReader reader) {
            this.reader = reader;
        }

        @Override
        public boolean hasNext() {
            return this.reader.hasNext();
        }

        @Override
        public StreamEvent next() {
            return this.reader.next();
        }

        @Override
        public StreamResult result() {
            return this.reader.result();
        }

        @Override
        public void close() {
            this.closed.set(true);
            this.reader.close();
        }
    }
}
