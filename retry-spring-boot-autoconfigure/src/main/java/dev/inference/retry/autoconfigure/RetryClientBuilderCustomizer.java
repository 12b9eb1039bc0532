package dev.inference.retry.autoconfigure;

import dev.inference.retry.RetryClient;

/**
 * Customizes the {@link RetryClient.Builder} with which an {@code InferenceClient} bean is wrapped,
 * or whose {@link RetryClient#retrier() retrier} retries a bean of another {@link RetriedBeanType}
 * (such as a Spring AI chat model; there the builder's sleeper plays no part, see {@link BeanRetriers}).
 *
 * <p>Every bean of this type is called, in {@link org.springframework.core.annotation.Order} order,
 * for every bean wrapped, after the builder has been given the bean's name, its policy and the
 * {@link dev.inference.retry.RetryListener} beans. Use it to add a listener for one client only, or
 * to set the {@linkplain RetryClient.Builder#random jitter source} or the
 * {@linkplain RetryClient.Builder#sleeper sleeper}, as tests do to run in virtual time.
 */
@FunctionalInterface
public interface RetryClientBuilderCustomizer {

    /**
     * Customizes the builder of one bean's retrying client.
     *
     * @param beanName the name of the bean being retried, which is also the client's name
     * @param builder the builder, not yet built
     */
    void customize(String beanName, RetryClient.Builder builder);
}
