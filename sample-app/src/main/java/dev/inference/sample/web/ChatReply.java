package dev.inference.sample.web;

/**
 * The answer to {@code GET /chat}.
 *
 * @param output the model's output
 * @param attempts how many attempts the call took
 */
public record ChatReply(String output, int attempts) {
}
