package dev.inference.retry.springai.fallback;

import dev.inference.retry.autoconfigure.fallback.FallbackMemberKind;
import org.springframework.ai.chat.model.ChatModel;

/**
 * Spring AI chat models as members of fallback chains, chained by a {@link FallbackChatModel} that
 * {@link ChatModelChains#chatModel(String)} makes. Listed in {@code META-INF/spring.factories}; left out
 * when Spring AI is not on the class path.
 */
public final class ChatModelMembers implements FallbackMemberKind {

    @Override
    public Class<?> memberType() {
        return ChatModel.class;
    }

    @Override
    public Class<?> chainType() {
        return FallbackChatModel.class;
    }

    @Override
    public String factoryBeanName() {
        return ChatModelChains.BEAN_NAME;
    }

    @Override
    public String factoryMethodName() {
        return "chatModel";
    }
}
