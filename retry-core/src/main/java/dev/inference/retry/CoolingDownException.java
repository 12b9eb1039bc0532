package dev.inference.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A call gave up rather than wait for its provider's {@code Retry-After} or a cool-down of its
 * provider account, because its caller has another model to ask: its context was made with
 * {@link dev.inference.client.CallContext#withFallback()}. No further request was made.
 *
 * <p>Thrown only for such a context, so a caller without a fallback never sees it. It is not an
 * {@link ExhaustedException}: the call may have made no attempt at all (its account was cooling
 * down before the first one), and its attempts did not run out. Never retryable.
 */
public class CoolingDownException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** How many attempts the call made before it gave up; 0 when it gave up before its first. */
    private final int attempts;

    /** How long the call would have waited. */
    private final Duration wait;

    /**
     * Creates the exception.
     *
     * @param attempts how many attempts the call made before giving up; 0 when it gave up before its
     *     first one
     * @param wait how long the call would have waited
     * @param cause the failure of the attempt that asked for the wait, or {@code null} when a cool-down
     *     held the call before its first attempt
     * @throws NullPointerException if {@code wait} is {@code null}
     * @throws IllegalArgumentException if {@code attempts} is negative
     */
    public CoolingDownException(int attempts, Duration wait, @Nullable RuntimeException cause) {
        super("Gave up after " + attempts + ((attempts == 1) ? " attempt" : " attempts") + " rather than wait "
                + Objects.requireNonNull(wait, "wait must not be null") + " for the provider to cool down, since the "
                + "caller has a fallback" + ((cause != null) ? ": " + cause : ""), cause);
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
        }
        this.attempts = attempts;
        this.wait = wait;
    }

    /**
     * Returns how many attempts the call made.
     *
     * @return the number of attempts, 0 when a cool-down held the call before its first one
     */
    public int attempts() {
        return this.attempts;
    }

    /**
     * Returns how long the call would have waited.
     *
     * @return the wait it refused
     */
    public Duration refusedWait() {
        return this.wait;
    }

    /**
     * Returns the failure that asked for the wait.
     *
     * @return the failure, or empty when a cool-down held the call before its first attempt
     */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable((RuntimeException) getCause());
    }
}
