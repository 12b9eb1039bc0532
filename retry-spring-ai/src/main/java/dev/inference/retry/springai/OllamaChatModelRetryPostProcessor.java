package dev.inference.retry.springai;

import dev.inference.retry.Retrier;
import java.util.Optional;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.retry.RetryUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.web.client.ResponseErrorHandler;

/**
 * Rebuilds every {@link OllamaChatModel} bean that {@link ChatModelRetriers} gives a retrier on a
 * client whose HTTP exchanges that retrier retries; see {@link OllamaChatModelRebuild}. The bean keeps
 * its class, so code that injects {@code OllamaChatModel} by class gets the retried model.
 *
 * <p>Left as they are: beans for which {@link ChatModelRetriers} answers empty, targets of a scoped
 * proxy, models already rebuilt, and every other bean, such as the Ollama embedding model and the
 * {@code OllamaApi} and {@code RetryTemplate} beans it may share with other models. Runs before the
 * post-processors of default order, so that it sees the model itself rather than a proxy made of it.
 * The collaborators come through {@link ObjectProvider}s and are resolved at the first
 * {@code OllamaChatModel} bean, so registering this post-processor initialises nothing early.
 */
final class OllamaChatModelRetryPostProcessor implements BeanPostProcessor, Ordered {

    private final ObjectProvider<ChatModelRetriers> retriers;

    private final ObjectProvider<ResponseErrorHandler> errorHandler;

    /**
     * Creates the post-processor.
     *
     * @param retriers the retriers of the chat model beans
     * @param errorHandler the application's response error handler, if any: the one Spring AI's
     *     auto-configuration gives the {@code OllamaApi}, which falls back to Spring AI's default
     */
    OllamaChatModelRetryPostProcessor(ObjectProvider<ChatModelRetriers> retriers,
            ObjectProvider<ResponseErrorHandler> errorHandler) {
        this.retriers = retriers;
        this.errorHandler = errorHandler;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof OllamaChatModel model) || ScopedProxyUtils.isScopedTarget(beanName)) {
            return bean;
        }
        Optional<Retrier> retrier = this.retriers.getObject().retrierFor(beanName);
        if (retrier.isEmpty() || OllamaChatModelRebuild.isRetried(model)) {
            return bean;
        }
        return OllamaChatModelRebuild.rebuild(model, beanName, retrier.get(),
                this.errorHandler.getIfAvailable(() -> RetryUtils.DEFAULT_RESPONSE_ERROR_HANDLER));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
