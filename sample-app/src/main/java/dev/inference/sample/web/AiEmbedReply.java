package dev.inference.sample.web;

import java.util.List;

/**
 * The answer to {@code GET /ai/embed}: the text's embedding. Like {@code /ai/chat}'s, it has no number of
 * attempts: the retries happen beneath the embedding model (the meters count them).
 *
 * @param embedding the embedding's values, in order
 */
public record AiEmbedReply(List<Float> embedding) {

    /**
     * Creates the answer.
     *
     * @param embedding the embedding's values, copied
     */
    public AiEmbedReply {
        embedding = List.copyOf(embedding);
    }
}
