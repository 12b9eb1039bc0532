package dev.inference.client;

import java.util.Objects;

/**
 * An immutable inference response: the model's output and how many attempts the call took.
 *
 * <p>Transports return responses with {@code attempts() == 0}; a retry decorator stamps the number
 * of attempts it made with {@link #withAttempts(int)}.
 */
public final class InferenceResponse {

    private final String output;

    private final int attempts;

    private InferenceResponse(String output, int attempts) {
        this.output = output;
        this.attempts = attempts;
    }

    /**
     * Creates a response that no decorator has stamped yet ({@code attempts() == 0}).
     *
     * @param output the model's output; may be empty
     * @return the response
     * @throws NullPointerException if {@code output} is {@code null}
     */
    public static InferenceResponse of(String output) {
        return new InferenceResponse(Objects.requireNonNull(output, "output must not be null"), 0);
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
        return new InferenceResponse(this.output, attempts);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof InferenceResponse that && this.attempts == that.attempts
                && this.output.equals(that.output));
    }

    @Override
    public int hashCode() {
        return 31 * this.output.hashCode() + this.attempts;
    }

    /**
     * Describes the response by the length of its output and its attempts; the output itself is
     * left out, since it may hold data that must not reach logs.
     */
    @Override
    public String toString() {
        return "InferenceResponse[output=" + this.output.length() + " chars, attempts=" + this.attempts + "]";
    }
}
