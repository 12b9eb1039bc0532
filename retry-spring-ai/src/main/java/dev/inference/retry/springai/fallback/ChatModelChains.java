package dev.inference.retry.springai.fallback;

import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import dev.inference.retry.fallback.FallbackChain;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.BeanFactory;

/**
 * Makes the chains of chat models that the starter registered from {@code inference.retry.fallbacks.*}:
 * the bean of this class, named {@value #BEAN_NAME}, is their factory.
 */
public final class ChatModelChains {

    /** The name of this class's bean. */
    public static final String BEAN_NAME = "inferenceRetryChatModelChains";

    private final BeanFactory beanFactory;

    private final FallbackChains chains;

    private final UnaryOperator<RuntimeException> typing;

    /**
     * Creates the factory.
     *
     * @param beanFactory where the member models are
     * @param chains the chains' settings, listeners and cool-downs
     * @param typing the typed failure a chat model's exception stands for (an
     *     {@code HttpStatusException}, a {@code QuotaExceededException}), as the provider integrations
     *     type it, or the exception itself when none knows it
     */
    public ChatModelChains(BeanFactory beanFactory, FallbackChains chains, UnaryOperator<RuntimeException> typing) {
        this.beanFactory = beanFactory;
        this.chains = chains;
        this.typing = typing;
    }

    /**
     * Makes the chain of chat models of that name.
     *
     * @param chain the chain's name
     * @return the chain
     */
    public FallbackChatModel chatModel(String chain) {
        FallbackChainProperties settings = this.chains.settings(chain);
        FallbackChain rules = this.chains.rules(chain, this.chains::coolingOf);
        List<ChatModel> members = new ArrayList<>();
        for (String member : settings.getMembers()) {
            members.add(this.beanFactory.getBean(member, ChatModel.class));
        }
        return new FallbackChatModel(rules, members, this.typing);
    }
}
