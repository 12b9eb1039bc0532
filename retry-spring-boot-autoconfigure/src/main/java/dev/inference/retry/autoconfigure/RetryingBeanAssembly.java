package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Builds the retrying client of a bean the way every retried bean gets it: named after the bean, with
 * every {@link RetryListener} bean (of a {@link PerClientRetryListener}, the listener it gives for the
 * bean's name), then customized by every {@link RetryClientBuilderCustomizer} bean, both in order. The
 * one place where a bean's retry is assembled, for {@code InferenceClient} beans and for the beans of
 * every other {@link RetriedBeanType} alike.
 */
final class RetryingBeanAssembly {

    private final ObjectProvider<RetryListener> listeners;

    private final ObjectProvider<RetryClientBuilderCustomizer> customizers;

    RetryingBeanAssembly(ObjectProvider<RetryListener> listeners,
            ObjectProvider<RetryClientBuilderCustomizer> customizers) {
        this.listeners = listeners;
        this.customizers = customizers;
    }

    /**
     * Builds a bean's retrying client.
     *
     * @param inner the client whose calls are retried
     * @param policy the bean's validated policy
     * @param beanName the bean's name, which is also the client's
     * @return the retrying client
     */
    RetryClient build(InferenceClient inner, Policy policy, String beanName) {
        RetryClient.Builder builder = RetryClient.builder(inner, policy).name(beanName);
        this.listeners.orderedStream().forEach((listener) -> builder.listener(forClient(listener, beanName)));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(beanName, builder));
        return builder.build();
    }

    private static RetryListener forClient(RetryListener listener, String beanName) {
        return (listener instanceof PerClientRetryListener perClient) ? perClient.forClient(beanName) : listener;
    }
}
