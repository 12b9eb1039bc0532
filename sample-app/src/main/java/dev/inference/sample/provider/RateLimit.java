package dev.inference.sample.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A fixed limit of requests per window, shared by every caller of the {@link FlakyProvider}, as a
 * provider limits an account: each window admits its first {@code requests} requests and refuses the
 * rest. Each answer tells what is left of the window the request fell in ({@link Window}), as OpenAI's
 * rate-limit headers do.
 *
 * <p>The windows are aligned to the wall clock, as fixed-window limiters usually are (two-second
 * windows start at every even second since the epoch), so that a load can be started at a known point
 * of a window; once made, the limit counts them on a monotonic clock ({@link System#nanoTime()} unless
 * a test gives another), which no step of the wall clock moves. Thread-safe.
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

    private RateLimit(int requests, Duration window, LongSupplier nanoTime, long phaseMillis) {
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
        this.start = nanoTime.getAsLong() - Math.floorMod(phaseMillis, window.toMillis()) * 1_000_000;
    }

    /**
     * Makes a limit whose windows are aligned to the wall clock.
     *
     * @param requests how many requests each window admits, at least 1
     * @param window how long each window lasts, at least a millisecond
     * @return the limit
     * @throws IllegalArgumentException if {@code requests} or {@code window} is too small
     */
    public static RateLimit of(int requests, Duration window) {
        return new RateLimit(requests, window, System::nanoTime, System.currentTimeMillis());
    }

    /**
     * Makes a limit on clocks of the test's: a monotonic one in nanoseconds, as {@link System#nanoTime()}
     * counts, and the wall clock's reading now, in milliseconds since the epoch.
     */
    static RateLimit withClocks(int requests, Duration window, LongSupplier nanoTime, long wallMillis) {
        return new RateLimit(requests, window, nanoTime, wallMillis);
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
