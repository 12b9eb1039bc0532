package dev.inference.retry.springai.openai;

import dev.inference.retry.springai.support.SpringAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider.BuiltInTranslator;
import dev.inference.retry.springai.support.SpringAiProvider.ClientRetries;
import java.util.List;
import java.util.Set;

/**
 * OpenAI, as the starter retries it: {@code OpenAiChatModel} rebuilt on the official OpenAI Java SDK's
 * clients, whose HTTP exchanges are retried (see {@link OpenAiChatModelRebuild}).
 */
public final class OpenAiProvider {

    /** The property of the own retries of {@code openAiChatModel}'s clients. */
    static final String CLIENT_RETRIES_PROPERTY = "spring.ai.openai.chat.max-retries";

    /** The description, which loads none of OpenAI's classes. */
    public static final SpringAiProvider DESCRIPTION = new SpringAiProvider("OpenAI",
            "dev.inference.retry.springai.openai.OpenAiRetryConfiguration",
            Set.of("org.springframework.ai.openai.OpenAiChatModel"),
            List.of(new ClientRetries("org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration",
                    "openAiChatModel", CLIENT_RETRIES_PROPERTY)),
            List.of(new BuiltInTranslator("com.openai.errors.OpenAIServiceException",
                    (clock) -> OpenAiFailures.translator(clock))));

    private OpenAiProvider() {
    }
}
