package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.RetryClient;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every {@code InferenceClient} bean in a {@link RetryClient} named after the bean, exactly
 * once, with the retrier that {@link BeanRetriers} assembles for it.
 *
 * <p>Left as they are: beans whose object is a {@code RetryClient} already, however they are
 * declared (recorded, so that they are described by their own name and policy), targets of a scoped
 * proxy (the proxy, which the application injects, is wrapped instead), and beans switched off. The
 * product of a {@code FactoryBean} is wrapped, the factory itself is not. Trap: the collaborators come
 * through an {@link ObjectProvider} resolved at the first {@code InferenceClient} bean, so that
 * registering this post-processor initialises nothing early.
 */
final class InferenceClientRetryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<BeanRetriers> retriers;

    InferenceClientRetryPostProcessor(ObjectProvider<BeanRetriers> retriers) {
        this.retriers = retriers;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof InferenceClient client) || ScopedProxyUtils.isScopedTarget(beanName)) {
            return bean;
        }
        BeanRetriers retriers = this.retriers.getObject();
        if (bean instanceof RetryClient retrying) {
            retriers.ownRetryClient(beanName, retrying);
            return bean;
        }
        return retriers.retrierFor(beanName).<Object>map((retrier) -> RetryClient.of(client, retrier)).orElse(bean);
    }
}
