package dev.inference.retry.springai.anthropic;

import dev.inference.retry.springai.support.SpringAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider.BuiltInTranslator;
import dev.inference.retry.springai.support.SpringAiProvider.ClientRetries;
import java.util.List;
import java.util.Set;

/**
 * Anthropic, as the starter retries it: {@code AnthropicChatModel} rebuilt on the official Anthropic
 * Java SDK's clients, whose HTTP exchanges are retried (see {@link AnthropicChatModelRebuild}).
 */
public final class AnthropicProvider {

    /** The property of the own retries of {@code anthropicChatModel}'s clients. */
    static final String CLIENT_RETRIES_PROPERTY = "spring.ai.anthropic.max-retries";

    /** The description, which loads none of Anthropic's classes. */
    public static final SpringAiProvider DESCRIPTION = new SpringAiProvider("Anthropic",
            "dev.inference.retry.springai.anthropic.AnthropicRetryConfiguration",
            Set.of("org.springframework.ai.anthropic.AnthropicChatModel"),
            List.of(new ClientRetries(
                    "org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration",
                    "anthropicChatModel", CLIENT_RETRIES_PROPERTY)),
            List.of(new BuiltInTranslator("com.anthropic.errors.AnthropicServiceException",
                    (clock) -> AnthropicFailures.translator(clock))));

    private AnthropicProvider() {
    }
}
