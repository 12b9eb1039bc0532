package dev.inference.retry;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.StreamStalledException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The reader of an established stream whose attempt had a scope of its own: keeps that scope open
 * while the stream is read (so the caller's cancellation still reaches it) and closes it with the
 * reader; with a {@code stream-idle-timeout}, ends the stream when a read waits past it (SPEC §11).
 *
 * <p>The idle watch is one timer task at a time, not one per event: it fires at the last event plus
 * the timeout and, finding a later event or no read in progress, schedules itself again for what
 * remains. Only the time a read waits counts: a caller slow to ask for the next event does not stall
 * its stream. On a stall the attempt's context is cancelled (the inner client's abort actions run),
 * the inner reader is closed, the listeners hear of it once, and every later {@code hasNext()} or
 * {@code next()} throws a {@link StreamStalledException}.
 *
 * <p>Trap: every event the inner reader returns counts as content: telling keep-alives apart is the
 * inner client's part (the sample's client never returns an SSE comment as an event).
 */
final class WatchedStreamReader implements StreamReader {

    private final StreamReader delegate;

    private final AttemptScope scope;

    private final @Nullable Duration idleTimeout;

    private final AttemptScope.Timer timer;

    private final Retrier retrier;

    private final AtomicBoolean closed = new AtomicBoolean();

    private final AtomicBoolean stalled = new AtomicBoolean();

    /** When the latest event came, or the latest read began, on the timer's clock. */
    private volatile long lastActivity;

    private volatile boolean reading;

    private volatile CallContext.Registration watch = () -> {
    };

    private WatchedStreamReader(StreamReader delegate, AttemptScope scope, @Nullable Duration idleTimeout,
            Retrier retrier) {
        this.delegate = delegate;
        this.scope = scope;
        this.idleTimeout = idleTimeout;
        this.timer = retrier.timer();
        this.retrier = retrier;
    }

    /** Watches an established stream; the scope is closed with the reader. */
    static WatchedStreamReader watch(StreamReader delegate, AttemptScope scope, @Nullable Duration idleTimeout,
            Retrier retrier) {
        WatchedStreamReader reader = new WatchedStreamReader(delegate, scope, idleTimeout, retrier);
        if (idleTimeout != null) {
            reader.lastActivity = reader.timer.nanoTime();
            reader.schedule(idleTimeout.toNanos());
        }
        return reader;
    }

    @Override
    public boolean hasNext() {
        return read(this.delegate::hasNext);
    }

    @Override
    public StreamEvent next() {
        return read(this.delegate::next);
    }

    private <T> T read(Supplier<T> read) {
        throwIfStalled(null);
        this.lastActivity = this.timer.nanoTime();
        this.reading = true;
        T value;
        try {
            value = read.get();
        }
        catch (RuntimeException ex) {
            throwIfStalled(ex);
            throw ex;
        }
        finally {
            this.reading = false;
            this.lastActivity = this.timer.nanoTime();
        }
        throwIfStalled(null);
        return value;
    }

    private void throwIfStalled(@Nullable RuntimeException thrown) {
        if (this.stalled.get()) {
            Duration timeout = Objects.requireNonNull(this.idleTimeout);
            StreamStalledException stall = new StreamStalledException(
                    "The stream stayed silent for " + timeout + " (its stream-idle-timeout) and was closed", timeout);
            if (thrown != null) {
                stall.addSuppressed(thrown);
            }
            throw stall;
        }
    }

    /** The timer's task: stalls the stream, or looks again when the timeout has passed since the latest activity. */
    private void check() {
        long timeout = Objects.requireNonNull(this.idleTimeout).toNanos();
        long silent = this.timer.nanoTime() - this.lastActivity;
        if (this.closed.get()) {
            return;
        }
        if (!this.reading || silent < timeout) {
            schedule(this.reading ? timeout - silent : timeout);
            return;
        }
        if (this.stalled.compareAndSet(false, true)) {
            stall();
        }
    }

    private void schedule(long delayNanos) {
        this.watch = this.timer.schedule(Duration.ofNanos(delayNanos), this::check);
        // Closed meanwhile: close() may have withdrawn the previous task only.
        if (this.closed.get()) {
            this.watch.close();
        }
    }

    private void stall() {
        try {
            this.scope.cancel();
        }
        catch (RuntimeException ignored) {
            // An abort action that failed: the reader is closed below all the same.
        }
        try {
            this.delegate.close();
        }
        catch (RuntimeException ignored) {
            // Closing a stalled connection may fail; the reader reports the stall whatever happens.
        }
        this.retrier.streamStalled(Objects.requireNonNull(this.idleTimeout));
    }

    @Override
    public StreamResult result() {
        return this.delegate.result();
    }

    @Override
    public Optional<Duration> rateLimitedFor() {
        return this.delegate.rateLimitedFor();
    }

    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        this.watch.close();
        try {
            this.delegate.close();
        }
        finally {
            this.scope.close();
        }
    }

    @Override
    public String toString() {
        return "WatchedStreamReader[idleTimeout=" + ((this.idleTimeout != null) ? this.idleTimeout : "off")
                + ", stalled=" + this.stalled.get() + ", delegate=" + this.delegate + "]";
    }
}
