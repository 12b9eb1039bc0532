package dev.inference.sample.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A fixed limit of requests per window, shared by every caller of the {@link FlakyProvider}, as a
 * provider limits an account: the windows follow each other from the moment the limit was made, each
 * admitting its first {@code requests} requests and refusing the rest. Each answer tells what is left
 * of the window the request fell in ({@link Window}), as OpenAI's rate-limit headers do.
 *
 * <p>Thread-safe. Time is read from a monotonic clock, {@link System#nanoTime()} unless a test gives
 * another.
 */
public final class RateLimit {

    private final int requests;

    private final Duration window;

    private final LongSupplier nanoTime;

    private final long start;

    /** The window the last request fell in, counted from {@link #start}; guarded by {@code this}. */
    private long current;

    /** Requests admitted in {@link #current}; guarded by {@code this}. */
    private int used;

    private RateLimit(int requests, Duration window, LongSupplier nanoTime) {
        if (requests < 1) {
            throw new IllegalArgumentException("requests must be at least 1, was " + requests);
        }
        Objects.requireNonNull(window, "window must not be null");
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("window must be at least 1ms, was " + window);
        }
        this.requests = requests;
        this.window = window;
        this.nanoTime = nanoTime;
        this.start = nanoTime.getAsLong();
    }

    /**
     * Makes a limit whose first window starts now.
     *
     * @param requests how many requests each window admits, at least 1
     * @param window how long each window lasts, at least a millisecond
     * @return the limit
     * @throws IllegalArgumentException if {@code requests} or {@code window} is too small
     */
    public static RateLimit of(int requests, Duration window) {
        return new RateLimit(requests, window, System::nanoTime);
    }

    /** Makes a limit on a clock of the test's, in nanoseconds as {@link System#nanoTime()} counts. */
    static RateLimit withClock(int requests, Duration window, LongSupplier nanoTime) {
        return new RateLimit(requests, window, nanoTime);
    }

    /**
     * Counts a request against the window it falls in.
     *
     * @return whether it is admitted, and what is left of its window
     */
    public synchronized Window admit() {
        long elapsed = this.nanoTime.getAsLong() - this.start;
        long windowNanos = this.window.toNanos();
        long index = elapsed / windowNanos;
        if (index != this.current) {
            this.current = index;
            this.used = 0;
        }
        boolean admitted = this.used < this.requests;
        if (admitted) {
            this.used++;
        }
        return new Window(admitted, this.requests, this.requests - this.used,
                Duration.ofNanos((index + 1) * windowNanos - elapsed));
    }

    @Override
    public String toString() {
        return this.requests + " requests per " + this.window;
    }

    /**
     * What is left of the window a request fell in, once it was counted.
     *
     * @param admitted whether the request was within the limit
     * @param limit the requests each window admits
     * @param remaining the requests the window still admits
     * @param resetIn how long until the next window starts, positive
     */
    public record Window(boolean admitted, int limit, int remaining, Duration resetIn) {
    }
}
