package dev.inference.retry.autoconfigure;

import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryListener;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Builds the retrier of a bean the way every retried bean gets it: named after the bean, with every
 * {@link RetryListener} bean (of a {@link PerClientRetryListener}, the listener it gives for the
 * bean's name), then customized by every {@link RetrierCustomizer} bean, both in order. The
 * one place where a bean's retry is assembled, for {@code InferenceClient} beans and for the beans of
 * every other {@link RetriedBeanType} alike.
 */
final class RetryingBeanAssembly {

    private final ObjectProvider<RetryListener> listeners;

    private final ObjectProvider<RetrierCustomizer> customizers;

    RetryingBeanAssembly(ObjectProvider<RetryListener> listeners,
            ObjectProvider<RetrierCustomizer> customizers) {
        this.listeners = listeners;
        this.customizers = customizers;
    }

    /**
     * Builds a bean's retrier.
     *
     * @param policy the bean's validated policy
     * @param beanName the bean's name, which is also the retrier's
     * @return the retrier
     */
    Retrier build(Policy policy, String beanName) {
        Retrier.Builder builder = Retrier.builder(policy).name(beanName);
        this.listeners.orderedStream().forEach((listener) -> builder.listener(forClient(listener, beanName)));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(beanName, builder));
        return builder.build();
    }

    private static RetryListener forClient(RetryListener listener, String beanName) {
        return (listener instanceof PerClientRetryListener perClient) ? perClient.forClient(beanName) : listener;
    }
}
