package dev.inference.benchmarks.storm;

import java.time.Duration;

/**
 * A provider's request limit: at most {@code capacity} requests admitted per fixed window, the windows
 * counted from the provider's start. A request over the limit is refused and uses up nothing, so a
 * caller that retries fast costs only its own 429s, never another caller's capacity.
 *
 * <p>Each decision says what OpenAI's headers say: how many requests remain in the window and how long
 * until it resets. Time is given in nanoseconds since the provider's start, so tests run in virtual
 * time. Thread-safe: {@link #admit} is atomic.
 */
final class RequestWindow {

    private final int capacity;

    private final long windowNanos;

    private long window = -1;

    private int admitted;

    /**
     * Creates a limit.
     *
     * @param capacity the requests admitted per window, at least one
     * @param window the window's length, positive
     * @throws IllegalArgumentException if either is out of range
     */
    RequestWindow(int capacity, Duration window) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, was " + window);
        }
        this.capacity = capacity;
        this.windowNanos = window.toNanos();
    }

    /**
     * Decides one request.
     *
     * @param nowNanos nanoseconds since the provider's start, never less than an earlier call's
     * @return whether it is admitted, the requests left in its window after it, and the time to the
     *     window's reset
     */
    synchronized Admission admit(long nowNanos) {
        long current = nowNanos / this.windowNanos;
        if (current != this.window) {
            this.window = current;
            this.admitted = 0;
        }
        Duration reset = Duration.ofNanos((current + 1) * this.windowNanos - nowNanos);
        if (this.admitted >= this.capacity) {
            return new Admission(false, 0, reset);
        }
        this.admitted++;
        return new Admission(true, this.capacity - this.admitted, reset);
    }

    /**
     * Returns the requests admitted per window.
     *
     * @return the capacity
     */
    int capacity() {
        return this.capacity;
    }

    /**
     * One request's fate.
     *
     * @param admitted whether the provider answers it
     * @param remaining the requests still admitted in its window after this one
     * @param reset how long until the window resets, positive
     */
    record Admission(boolean admitted, int remaining, Duration reset) {

        /**
         * Returns the reset as OpenAI writes it in {@code x-ratelimit-reset-requests}: Go's duration
         * format, milliseconds below a second ({@code 850ms}), else seconds with up to three decimals
         * ({@code 1.25s}).
         *
         * @return the header's value
         */
        String resetHeader() {
            long millis = Math.max(1, this.reset.toMillis());
            if (millis < 1000) {
                return millis + "ms";
            }
            String seconds = java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
            return seconds + "s";
        }

        /**
         * Returns {@code Retry-After} as OpenAI sends it with a 429: whole seconds, rounded up, so that
         * a caller that obeys it never comes back before the reset.
         *
         * @return the header's value, at least {@code 1}
         */
        String retryAfterHeader() {
            long nanos = this.reset.toNanos();
            long seconds = (nanos + 999_999_999L) / 1_000_000_000L;
            return Long.toString(Math.max(1, seconds));
        }
    }
}
