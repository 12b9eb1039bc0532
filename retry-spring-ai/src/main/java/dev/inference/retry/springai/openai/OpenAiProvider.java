package dev.inference.retry.springai.openai;

import dev.inference.retry.springai.support.SpringAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider.BuiltInTranslator;
import dev.inference.retry.springai.support.SpringAiProvider.ClientRetries;
import java.util.List;
import java.util.Set;

/**
 * OpenAI, as the starter retries it: {@code OpenAiChatModel} and {@code OpenAiEmbeddingModel} rebuilt on
 * the official OpenAI Java SDK's clients, whose HTTP exchanges are retried (see
 * {@link OpenAiChatModelRebuild} and {@link OpenAiEmbeddingModelRebuild}).
 */
public final class OpenAiProvider {

    /** The property of the own retries of {@code openAiChatModel}'s clients. */
    static final String CLIENT_RETRIES_PROPERTY = "spring.ai.openai.chat.max-retries";

    /** The property of the own retries of {@code openAiEmbeddingModel}'s client. */
    static final String EMBEDDING_CLIENT_RETRIES_PROPERTY = "spring.ai.openai.embedding.max-retries";

    private static final String AUTO_CONFIGURATION = "org.springframework.ai.model.openai.autoconfigure.";

    /** The description, which loads none of OpenAI's classes. */
    public static final SpringAiProvider DESCRIPTION = new SpringAiProvider("OpenAI",
            "dev.inference.retry.springai.openai.OpenAiRetryConfiguration",
            Set.of("org.springframework.ai.openai.OpenAiChatModel",
                    "org.springframework.ai.openai.OpenAiEmbeddingModel"),
            List.of(new ClientRetries(AUTO_CONFIGURATION + "OpenAiChatAutoConfiguration", "openAiChatModel",
                    CLIENT_RETRIES_PROPERTY),
                    new ClientRetries(AUTO_CONFIGURATION + "OpenAiEmbeddingAutoConfiguration", "openAiEmbeddingModel",
                            EMBEDDING_CLIENT_RETRIES_PROPERTY)),
            List.of(new BuiltInTranslator("com.openai.errors.OpenAIServiceException",
                    (clock) -> OpenAiFailures.translator(clock))));

    private OpenAiProvider() {
    }
}
