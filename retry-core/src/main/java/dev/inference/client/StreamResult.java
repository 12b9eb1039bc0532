package dev.inference.client;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The immutable terminal result of a stream: whether it completed or failed, and how many attempts
 * its establishment took.
 */
public final class StreamResult {

    private static final StreamResult COMPLETED = new StreamResult(null, 0);

    private final @Nullable RuntimeException failure;

    private final int attempts;

    private StreamResult(@Nullable RuntimeException failure, int attempts) {
        this.failure = failure;
        this.attempts = attempts;
    }

    /**
     * Returns the result of a stream that ended normally, not yet stamped with attempts.
     *
     * @return the completed result
     */
    public static StreamResult completed() {
        return COMPLETED;
    }

    /**
     * Returns the result of a stream that ended with a failure, not yet stamped with attempts.
     *
     * @param failure the failure that ended the stream
     * @return the failed result
     * @throws NullPointerException if {@code failure} is {@code null}
     */
    public static StreamResult failed(RuntimeException failure) {
        return new StreamResult(Objects.requireNonNull(failure, "failure must not be null"), 0);
    }

    /**
     * Returns how many attempts the stream's establishment took, as stamped by a retry decorator.
     *
     * @return the number of attempts, {@code 0} when no decorator stamped it
     */
    public int attempts() {
        return this.attempts;
    }

    /**
     * Returns a copy of this result stamped with a number of establishment attempts.
     *
     * @param attempts the number of attempts; must not be negative
     * @return a result with the same outcome and the given attempts
     * @throws IllegalArgumentException if {@code attempts} is negative
     */
    public StreamResult withAttempts(int attempts) {
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
        }
        return new StreamResult(this.failure, attempts);
    }

    /**
     * Returns the failure that ended the stream.
     *
     * @return the failure, or empty when the stream completed normally
     */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(this.failure);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof StreamResult that && this.attempts == that.attempts
                && Objects.equals(this.failure, that.failure));
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(this.failure) + this.attempts;
    }

    @Override
    public String toString() {
        return "StreamResult[" + ((this.failure != null) ? "failed: " + this.failure : "completed")
                + ", attempts=" + this.attempts + "]";
    }
}
