package dev.inference.client;

import java.util.Objects;

/**
 * An immutable inference request: the model to ask and the input to give it.
 *
 * <p>Decorators pass the very same instance to every attempt; nothing ever rewrites or replays a
 * request body.
 *
 * @param model the provider's model identifier, never blank
 * @param input the prompt or message content, possibly empty
 */
public record InferenceRequest(String model, String input) {

    /**
     * Validates the request; {@link #of} is the usual way to make one.
     *
     * @param model the provider's model identifier; must not be blank
     * @param input the prompt or message content; may be empty
     * @throws NullPointerException if either argument is {@code null}
     * @throws IllegalArgumentException if {@code model} is blank
     */
    public InferenceRequest {
        Objects.requireNonNull(model, "model must not be null");
        Objects.requireNonNull(input, "input must not be null");
        if (model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank");
        }
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
        return new InferenceRequest(model, input);
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
