package dev.inference.retry.autoconfigure;

import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Gives the {@link Retrier} of a bean of a {@link RetriedBeanType}, such as a Spring AI chat model,
 * configured by {@code inference.retry.*} exactly as an {@code InferenceClient} bean of the same name
 * would be: its validated policy, every {@link dev.inference.retry.RetryListener} bean (so the meters
 * count it under the bean's name), and every {@link RetrierCustomizer} bean (the retry
 * budget, the shared cool-down, the shutdown signal and the observations among them): the same
 * assembly that gives a wrapped {@code InferenceClient} bean its retrier. Trap: the retrier's
 * {@linkplain Retrier.Builder#sleeper sleeper} is used only by the integration's calls that block
 * (through {@link dev.inference.retry.BlockingRetry}); those that schedule their waits on a timer
 * ignore it. Once given, the bean is listed by the {@code inferenceretry} endpoint.
 *
 * <p>Thread-safe. Call it once per bean, when the bean is made, and keep the retrier.
 */
public final class BeanRetriers {

    private final ObjectProvider<RetriedClients> clients;

    private final RetryingBeanAssembly assembly;

    BeanRetriers(ObjectProvider<RetriedClients> clients, RetryingBeanAssembly assembly) {
        this.clients = clients;
        this.assembly = assembly;
    }

    /**
     * Returns the retrier of a bean.
     *
     * @param beanName the bean's name
     * @return its retrier, or empty when the bean is not to be retried
     *     ({@code inference.retry.clients.<name>.enabled=false}, or not a named bean of the factory)
     * @throws InvalidRetryPropertyException when the bean has no complete, valid policy
     */
    public Optional<Retrier> retrierFor(String beanName) {
        RetriedClients clients = this.clients.getObject();
        Optional<Policy> policy = clients.policyFor(beanName);
        if (policy.isEmpty()) {
            return Optional.empty();
        }
        Retrier retrier = this.assembly.build(policy.get(), beanName);
        clients.made(beanName, retrier);
        return Optional.of(retrier);
    }
}
