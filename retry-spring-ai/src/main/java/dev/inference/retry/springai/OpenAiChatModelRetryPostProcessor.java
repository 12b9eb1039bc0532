package dev.inference.retry.springai;

import dev.inference.retry.Retrier;
import java.util.Optional;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Rebuilds every {@link OpenAiChatModel} bean that {@link ChatModelRetriers} gives a retrier on
 * clients whose HTTP exchanges that retrier retries; see {@link OpenAiChatModelRebuild}. The bean keeps
 * its class, so code that injects {@code OpenAiChatModel} by class gets the retried model.
 *
 * <p>A model whose SDK clients would retry each exchange themselves ({@code maxRetries} above zero)
 * fails startup with {@link ChatModelClientRetriesException} rather than have its setting silently
 * overridden: the starter sets {@value #CHAT_MAX_RETRIES} to {@code 0} when the application leaves it
 * unset (see {@link ChatModelClientRetriesDefaults}), so only a value the application chose fails.
 *
 * <p>Left as they are: beans for which {@link ChatModelRetriers} answers empty, targets of a scoped
 * proxy, and models already rebuilt. Runs before the post-processors of default order, so that it
 * sees the model itself rather than a proxy made of it. The collaborators come through
 * {@link ObjectProvider}s and are resolved at the first {@code OpenAiChatModel} bean, so registering
 * this post-processor initialises nothing early.
 */
final class OpenAiChatModelRetryPostProcessor implements BeanPostProcessor, Ordered {

    /** The property of the auto-configured model's own retries. */
    static final String CHAT_MAX_RETRIES = "spring.ai.openai.chat.max-retries";

    private final ObjectProvider<ChatModelRetriers> retriers;

    private final ObjectProvider<RetryTimer> timer;

    OpenAiChatModelRetryPostProcessor(ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        this.retriers = retriers;
        this.timer = timer;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof OpenAiChatModel model) || ScopedProxyUtils.isScopedTarget(beanName)) {
            return bean;
        }
        Optional<Retrier> retrier = this.retriers.getObject().retrierFor(beanName);
        if (retrier.isEmpty() || OpenAiChatModelRebuild.isRetried(model, beanName)) {
            return bean;
        }
        int clientRetries = OpenAiChatModelRebuild.clientRetries(model, beanName);
        if (clientRetries > 0) {
            throw new ChatModelClientRetriesException(beanName, clientRetries, CHAT_MAX_RETRIES,
                    "(Spring AI reads " + CHAT_MAX_RETRIES + "=3, its default, as unset, and then takes "
                            + "spring.ai.openai.max-retries.) ");
        }
        return OpenAiChatModelRebuild.rebuild(model, beanName, retrier.get(), this.timer.getObject());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
