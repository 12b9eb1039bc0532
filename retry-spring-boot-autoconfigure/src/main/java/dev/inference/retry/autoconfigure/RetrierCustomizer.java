package dev.inference.retry.autoconfigure;

import dev.inference.retry.Retrier;

/**
 * Customizes the {@link Retrier.Builder} of every retried bean: the retrier with which an
 * {@code InferenceClient} bean is wrapped, and the one that retries a bean of another
 * {@link RetriedBeanType} (such as a Spring AI chat model, see {@link BeanRetriers}).
 *
 * <p>Every bean of this type is called, in {@link org.springframework.core.annotation.Order} order,
 * for every bean retried, after the builder has been given the bean's settings (its name, policy,
 * retry budget and cool-down) and the {@link dev.inference.retry.RetryListener} beans, so that what it
 * sets wins. Use it to add a listener for one client only, or to set the
 * {@linkplain Retrier.Builder#random jitter source} or the
 * {@linkplain Retrier.Builder#sleeper sleeper}, as tests do to run in virtual time. Trap: the sleeper
 * is how a caller that blocks waits; an integration that schedules its waits on a timer ignores it.
 */
@FunctionalInterface
public interface RetrierCustomizer {

    /**
     * Customizes the builder of one bean's retrier.
     *
     * @param beanName the name of the bean being retried, which is also the retrier's name
     * @param builder the builder, not yet built
     */
    void customize(String beanName, Retrier.Builder builder);
}
