package dev.inference.sample.openai;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;

/**
 * A response body read as an {@link InputStream} whose blocking reads end when the reading thread
 * is interrupted, on every Java version. The JDK's own ({@code BodySubscribers.ofInputStream()})
 * goes on waiting through an interrupt up to Java 17, and so loses the caller's cancellation.
 *
 * <p>An interrupted read closes the body, keeps the thread's interrupt status set and throws an
 * {@link InterruptedIOException}. A close, from any thread, cancels the body's subscription (the
 * HTTP client then drops the connection) and ends a read blocked in another thread. The body is
 * requested one list of buffers at a time, so at most one is held beyond what has been read.
 */
final class InterruptibleBody extends InputStream implements HttpResponse.BodySubscriber<InputStream> {

    /** What the subscription delivers, in order: buffers, then an end or a failure. */
    private sealed interface Item permits Buffers, End, Failed, Closed {
    }

    private record Buffers(List<ByteBuffer> buffers) implements Item {
    }

    private record End() implements Item {
    }

    private record Failed(Throwable failure) implements Item {
    }

    /** Put by {@link #close()}, to wake a read blocked in another thread. */
    private record Closed() implements Item {
    }

    private final BlockingQueue<Item> items = new LinkedBlockingQueue<>();

    private volatile Flow.@Nullable Subscription subscription;

    private volatile boolean closed;

    private Iterator<ByteBuffer> buffers = Collections.emptyIterator();

    private @Nullable ByteBuffer current;

    private boolean ended;

    @Override
    public CompletionStage<InputStream> getBody() {
        return CompletableFuture.completedFuture(this);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = Objects.requireNonNull(subscription, "subscription must not be null");
        if (this.closed) {
            subscription.cancel();
            return;
        }
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        this.items.add(new Buffers(item));
    }

    @Override
    public void onError(Throwable failure) {
        this.items.add(new Failed(failure));
    }

    @Override
    public void onComplete() {
        this.items.add(new End());
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return (read(one, 0, 1) < 0) ? -1 : (one[0] & 0xff);
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (length == 0) {
            return 0;
        }
        ByteBuffer buffer = nextBuffer();
        if (buffer == null) {
            return -1;
        }
        int read = Math.min(length, buffer.remaining());
        buffer.get(bytes, offset, read);
        return read;
    }

    /** Returns a buffer with bytes left to read, waiting for one if need be, or null at the end. */
    private @Nullable ByteBuffer nextBuffer() throws IOException {
        while (this.current == null || !this.current.hasRemaining()) {
            if (this.closed) {
                throw new IOException("The response body is closed");
            }
            if (this.buffers.hasNext()) {
                this.current = this.buffers.next();
                continue;
            }
            if (this.ended) {
                return null;
            }
            Item item = take();
            if (item instanceof Buffers delivered) {
                this.buffers = delivered.buffers().iterator();
                Objects.requireNonNull(this.subscription, "delivered before subscribed").request(1);
            }
            else if (item instanceof End) {
                this.ended = true;
            }
            else if (item instanceof Failed failed) {
                throw (failed.failure() instanceof IOException io) ? io : new IOException(failed.failure());
            }
            // Closed: the loop throws above.
        }
        return this.current;
    }

    private Item take() throws InterruptedIOException {
        try {
            return this.items.take();
        }
        catch (InterruptedException ex) {
            close();
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while reading the response body");
            interrupted.initCause(ex);
            throw interrupted;
        }
    }

    @Override
    public void close() {
        if (this.closed) {
            return;
        }
        this.closed = true;
        Flow.Subscription subscribed = this.subscription;
        if (subscribed != null) {
            subscribed.cancel();
        }
        this.items.add(new Closed());
    }
}
