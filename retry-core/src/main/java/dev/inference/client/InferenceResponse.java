package dev.inference.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An immutable inference response: the model's output, how many attempts the call took and, when
 * the transport read it, how long the provider said its rate limit stays exhausted.
 *
 * <p>Transports return responses with {@code attempts() == 0}; a retry decorator stamps the number
 * of attempts it made with {@link #withAttempts(int)}. A transport that reads the provider's
 * rate-limit headers (see {@code dev.inference.failure.RateLimitHeaders}) returns a response
 * {@link #withRateLimitedFor(Duration) rate-limited for} the time until the reset, so that a retry
 * decorator with a shared cool-down holds the account's other callers off that long.
 */
public final class InferenceResponse {

    private final String output;

    private final int attempts;

    private final @Nullable Duration rateLimitedFor;

    private InferenceResponse(String output, int attempts, @Nullable Duration rateLimitedFor) {
        this.output = output;
        this.attempts = attempts;
        this.rateLimitedFor = rateLimitedFor;
    }

    /**
     * Creates a response that no decorator has stamped yet ({@code attempts() == 0}).
     *
     * @param output the model's output; may be empty
     * @return the response
     * @throws NullPointerException if {@code output} is {@code null}
     */
    public static InferenceResponse of(String output) {
        return new InferenceResponse(Objects.requireNonNull(output, "output must not be null"), 0, null);
    }

    /**
     * Returns the model's output.
     *
     * @return the output, never {@code null}
     */
    public String output() {
        return this.output;
    }

    /**
     * Returns how many attempts produced this response, as stamped by a retry decorator.
     *
     * @return the number of attempts, {@code 0} when no decorator stamped it
     */
    public int attempts() {
        return this.attempts;
    }

    /**
     * Returns a copy of this response stamped with a number of attempts.
     *
     * @param attempts the number of attempts the call took; must not be negative
     * @return a response with the same output and the given attempts
     * @throws IllegalArgumentException if {@code attempts} is negative
     */
    public InferenceResponse withAttempts(int attempts) {
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
        }
        return new InferenceResponse(this.output, attempts, this.rateLimitedFor);
    }

    /**
     * Returns how long the provider's rate-limit headers said no requests or no tokens remain on
     * the account that made the call.
     *
     * @return the time until the limit resets, or empty when the transport read no exhausted limit
     */
    public Optional<Duration> rateLimitedFor() {
        return Optional.ofNullable(this.rateLimitedFor);
    }

    /**
     * Returns a copy of this response that says the provider's rate limit stays exhausted for a
     * while, as its headers said.
     *
     * @param rateLimitedFor the time until the limit resets, positive
     * @return a response with the same output and attempts
     * @throws NullPointerException if {@code rateLimitedFor} is {@code null}
     * @throws IllegalArgumentException if {@code rateLimitedFor} is zero or negative
     */
    public InferenceResponse withRateLimitedFor(Duration rateLimitedFor) {
        Objects.requireNonNull(rateLimitedFor, "rateLimitedFor must not be null");
        if (rateLimitedFor.isNegative() || rateLimitedFor.isZero()) {
            throw new IllegalArgumentException("rateLimitedFor must be positive, was " + rateLimitedFor);
        }
        return new InferenceResponse(this.output, this.attempts, rateLimitedFor);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof InferenceResponse that && this.attempts == that.attempts
                && this.output.equals(that.output) && Objects.equals(this.rateLimitedFor, that.rateLimitedFor));
    }

    @Override
    public int hashCode() {
        return 31 * (31 * this.output.hashCode() + this.attempts) + Objects.hashCode(this.rateLimitedFor);
    }

    /**
     * Describes the response by the length of its output and its attempts; the output itself is
     * left out, since it may hold data that must not reach logs.
     */
    @Override
    public String toString() {
        return "InferenceResponse[output=" + this.output.length() + " chars, attempts=" + this.attempts
                + ((this.rateLimitedFor != null) ? ", rateLimitedFor=" + this.rateLimitedFor : "") + "]";
    }
}
