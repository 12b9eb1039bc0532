package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
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
 * Each client's retrier is assembled by {@link RetryingBeanAssembly}, with the listener and
 * customizer beans. The collaborators come through {@link ObjectProvider}s and are resolved at the
 * first {@code InferenceClient} bean, so registering this post-processor initialises nothing early.
 */
final class InferenceClientRetryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<RetriedClients> clients;

    private final RetryingBeanAssembly assembly;

    InferenceClientRetryPostProcessor(ObjectProvider<RetriedClients> clients, RetryingBeanAssembly assembly) {
        this.clients = clients;
        this.assembly = assembly;
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
        RetryClient retrying = RetryClient.of(client, this.assembly.build(policy.get(), beanName));
        clients.made(beanName, retrying);
        return retrying;
    }
}
