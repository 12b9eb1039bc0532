package dev.inference.sample.web;

import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves embeddings through Spring AI's OpenAI embedding model (the bean {@code openAiEmbeddingModel}),
 * which the retry starter retries beneath the bean, in each of its HTTP exchanges with the provider, as
 * it retries the chat model. Nothing here knows about retries: the failures that reach this controller
 * are final, and become problem details as those of {@code /ai/chat} do (see {@link ChatFailures}).
 */
@RestController
class AiEmbedController {

    private final EmbeddingModel embeddingModel;

    AiEmbedController(EmbeddingModel embeddingModel) {
        this.embeddingModel = embeddingModel;
    }

    /**
     * Embeds a text.
     */
    @GetMapping("/ai/embed")
    AiEmbedReply embed(@RequestParam String text) {
        float[] embedding = this.embeddingModel.embed(text);
        List<Float> vector = new ArrayList<>(embedding.length);
        for (float value : embedding) {
            vector.add(value);
        }
        return new AiEmbedReply(vector);
    }
}
