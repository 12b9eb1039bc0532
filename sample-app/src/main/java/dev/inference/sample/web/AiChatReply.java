package dev.inference.sample.web;

/**
 * The answer to {@code GET /ai/chat}. Unlike {@code /chat}'s, it has no number of attempts: the
 * retries happen beneath the chat model, out of the chat client's sight (the meters count them).
 *
 * @param output the model's output
 */
public record AiChatReply(String output) {
}
