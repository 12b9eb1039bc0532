package dev.inference.retry.springai.support;

import dev.inference.retry.Retrier;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.time.WaitScheduler;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiPredicate;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Rebuilds every model bean of one class (a chat model, or an embedding model) that
 * {@link ModelRetriers} gives a retrier on provider clients whose HTTP exchanges that retrier
 * retries, with the provider's {@link Rebuild}. The bean keeps its class, so code that injects the model
 * by its class gets the retried model. A model whose SDK clients would retry each exchange themselves is
 * not rebuilt: its rebuild fails startup with a {@link ModelClientRetriesException} naming the property
 * that sets those retries.
 *
 * <p>Left as they are: beans for which {@link ModelRetriers} answers empty, targets of a scoped
 * proxy, and models already rebuilt. Runs before the post-processors of default order, so that it
 * sees the model itself rather than a proxy made of it. The collaborators come through
 * {@link ObjectProvider}s and are resolved at the first bean of the model's class, so registering this
 * post-processor initialises nothing early.
 *
 * @param <M> the model's class
 */
public final class ModelRetryPostProcessor<M> implements BeanPostProcessor, Ordered {

    private final Class<M> modelType;

    private final BiPredicate<M, String> isRetried;

    private final Rebuild<M> rebuild;

    private final ObjectProvider<ModelRetriers> retriers;

    private final ObjectProvider<RetryTimer> timer;

    /**
     * Creates the post-processor.
     *
     * @param modelType the class of the beans to rebuild
     * @param isRetried tells whether a model, of the bean named, is already one that {@code rebuild} built
     * @param rebuild rebuilds a model on retried clients
     * @param retriers the retriers of the beans
     * @param timer the timer of the rebuilt models' non-blocking waits, the application's one
     */
    public ModelRetryPostProcessor(Class<M> modelType, BiPredicate<M, String> isRetried, Rebuild<M> rebuild,
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        this.modelType = Objects.requireNonNull(modelType, "modelType must not be null");
        this.isRetried = Objects.requireNonNull(isRetried, "isRetried must not be null");
        this.rebuild = Objects.requireNonNull(rebuild, "rebuild must not be null");
        this.retriers = retriers;
        this.timer = timer;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!this.modelType.isInstance(bean)) {
            return bean;
        }
        // The target of a scoped proxy is the model the proxy's bean calls: rebuilt under the proxy's name,
        // with its retrier, since nothing above it can retry a model retried beneath the bean.
        String name = ScopedProxyUtils.isScopedTarget(beanName) ? ScopedProxyUtils.getOriginalBeanName(beanName)
                : beanName;
        M model = this.modelType.cast(bean);
        Optional<Retrier> retrier = this.retriers.getObject().retrierFor(name);
        if (retrier.isEmpty() || this.isRetried.test(model, name)) {
            return bean;
        }
        return this.rebuild.rebuild(model, name, retrier.get(), this.timer.getObject());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public String toString() {
        return "ModelRetryPostProcessor[" + this.modelType.getName() + "]";
    }

    /**
     * Rebuilds a model on provider clients whose exchanges a retrier retries.
     *
     * @param <M> the model's class
     */
    @FunctionalInterface
    public interface Rebuild<M> {

        /**
         * Rebuilds a model.
         *
         * @param model the model, which is left unchanged and should no longer be used
         * @param beanName its bean name, for the exception
         * @param retrier the decisions about every exchange of the model
         * @param waits the timer of the asynchronous client's waits
         * @return a new model of the same class
         * @throws ModelNotRetriableException if the model or its clients do not have the expected shape
         * @throws ModelClientRetriesException if the model's clients would retry each exchange themselves
         */
        M rebuild(M model, String beanName, Retrier retrier, WaitScheduler waits);
    }
}
