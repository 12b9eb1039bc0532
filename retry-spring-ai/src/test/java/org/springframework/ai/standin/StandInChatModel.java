package org.springframework.ai.standin;

import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Stands in for a chat model of Spring AI's own that no provider integration of the starter knows, such
 * as Mistral's, DeepSeek's or Bedrock's, whose modules cannot be fetched here: declared in Spring AI's
 * package, and, like Bedrock's, holding no {@code RetryTemplate} that would have it refused anyway.
 */
public class StandInChatModel implements ChatModel {

    @Override
    public ChatResponse call(Prompt prompt) {
        return new ChatResponse(List.of(new Generation(new AssistantMessage("Hello"))));
    }
}
