package dev.inference.client;

import java.util.Objects;

/**
 * An immutable inference request: the model to ask and the input to give it.
 *
 * <p>Decorators pass the very same instance to every attempt; nothing ever rewrites or replays a
 * request body.
 */
public final class InferenceRequest {

    private final String model;

    private final String input;

    private InferenceRequest(String model, String input) {
        this.model = model;
        this.input = input;
    }

    /**
     * Creates a request.
     *
     * @param model the provider's model identifier; must not be blank
     * @param input the prompt or message content; may be empty
     * @return the request
     * @throws NullPointerException if either argument is {@code null}
     * @throws IllegalArgumentException if {@code model} is blank
     */
    public static InferenceRequest of(String model, String input) {
        Objects.requireNonNull(model, "model must not be null");
        Objects.requireNonNull(input, "input must not be null");
        if (model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank");
        }
        return new InferenceRequest(model, input);
    }

    /**
     * Returns the model identifier.
     *
     * @return the model, never blank
     */
    public String model() {
        return this.model;
    }

    /**
     * Returns the input.
     *
     * @return the input, never {@code null}
     */
    public String input() {
        return this.input;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof InferenceRequest that && this.model.equals(that.model)
                && this.input.equals(that.input));
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.model, this.input);
    }

    /**
     * Describes the request by its model and the length of its input; the input itself is left
     * out, since prompts may hold data that must not reach logs.
     */
    @Override
    public String toString() {
        return "InferenceRequest[model=" + this.model + ", input=" + this.input.length() + " chars]";
    }
}
