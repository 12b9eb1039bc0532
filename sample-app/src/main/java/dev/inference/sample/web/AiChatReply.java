package dev.inference.sample.web;

/**
 * The answer to {@code GET /ai/chat}. Unlike {@code /chat}'s, it has no number of attempts: the
 * retries happen beneath the chat models, out of the chat client's sight (the meters count them).
 *
 * @param output the model's output
 * @param model the model that answered, as its provider named it: OpenAI's, or the backup's when the
 *     fallback chain fell over to it
 */
public record AiChatReply(String output, String model) {
}
