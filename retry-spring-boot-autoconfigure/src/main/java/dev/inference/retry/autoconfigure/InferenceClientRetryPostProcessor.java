package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import java.util.Optional;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every {@code InferenceClient} bean in a {@link RetryClient} named after the bean, exactly
 * once.
 *
 * <p>Left as they are: beans whose object is a {@code RetryClient} already, however they are
 * declared, targets of a scoped proxy (the proxy, which the application injects, is wrapped
 * instead), and beans that {@link RetriedClients} switches off. The product of a
 * {@code FactoryBean} is wrapped, the factory itself is not. Every retrying client that it leaves
 * or makes is recorded in {@link RetriedClients}, which describes it by its own name and policy.
 * Every {@code RetryListener} bean is attached to every client; of a {@link PerClientRetryListener}
 * bean, the listener it gives for the bean's name is attached instead. The collaborators come
 * through {@link ObjectProvider}s and are resolved at the first {@code InferenceClient} bean, so
 * registering this post-processor initialises nothing early.
 */
final class InferenceClientRetryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<RetriedClients> clients;

    private final ObjectProvider<RetryListener> listeners;

    private final ObjectProvider<RetryClientBuilderCustomizer> customizers;

    InferenceClientRetryPostProcessor(ObjectProvider<RetriedClients> clients, ObjectProvider<RetryListener> listeners,
            ObjectProvider<RetryClientBuilderCustomizer> customizers) {
        this.clients = clients;
        this.listeners = listeners;
        this.customizers = customizers;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof InferenceClient client) || ScopedProxyUtils.isScopedTarget(beanName)) {
            return bean;
        }
        RetriedClients clients = this.clients.getObject();
        if (bean instanceof RetryClient retrying) {
            clients.made(beanName, retrying);
            return bean;
        }
        Optional<Policy> policy = clients.policyFor(beanName);
        if (policy.isEmpty()) {
            return bean;
        }
        RetryClient.Builder builder = RetryClient.builder(client, policy.get()).name(beanName);
        this.listeners.orderedStream().forEach((listener) -> builder.listener(forClient(listener, beanName)));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(beanName, builder));
        RetryClient retrying = builder.build();
        clients.made(beanName, retrying);
        return retrying;
    }

    private static RetryListener forClient(RetryListener listener, String beanName) {
        return (listener instanceof PerClientRetryListener perClient) ? perClient.forClient(beanName) : listener;
    }
}
