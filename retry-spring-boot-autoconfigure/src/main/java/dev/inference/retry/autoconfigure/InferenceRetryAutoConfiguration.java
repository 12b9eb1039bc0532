package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import dev.inference.retry.autoconfigure.settings.BeanRetrySettings;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.cooldown.CooldownStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * wraps every {@link InferenceClient} bean in a {@link RetryClient} configured by
 * {@code inference.retry.*} (SPEC §5), and gives the beans of every other {@link RetriedBeanType}
 * (Spring AI's models, declared by the starter's Spring AI module) their retrier through
 * {@link BeanRetriers}.
 *
 * <p>Startup fails with an {@link InvalidRetryPropertyException} unless every bean to retry,
 * {@code @Lazy} ones included, resolves to valid {@link BeanRetrySettings} and every entry under
 * {@code inference.retry.clients} names a bean: {@link RetriedClients} says when each is checked, and
 * how a bean whose object is a {@code RetryClient} already is told without making a lazy bean that
 * need not be made. Every {@link RetryListener} bean is attached to every retrier, then every
 * {@link RetrierCustomizer} bean customizes its builder. With {@code inference.retry.enabled=false}
 * none of this happens; a value of it that is not a boolean fails startup.
 */
@AutoConfiguration
@Conditional(OnRetryEnabledCondition.class)
@EnableConfigurationProperties(InferenceRetryProperties.class)
public final class InferenceRetryAutoConfiguration {

    @Bean
    static InferenceClientRetryPostProcessor inferenceClientRetryPostProcessor(ObjectProvider<BeanRetriers> retriers) {
        return new InferenceClientRetryPostProcessor(retriers);
    }

    @Bean
    RetriedClients inferenceRetriedClients(InferenceRetryProperties properties,
            ConfigurableListableBeanFactory beanFactory, ObjectProvider<RetriedBeanType> types) {
        return RetriedClients.resolve(properties, beanFactory, types.orderedStream().toList());
    }

    @Bean
    BeanRetriers inferenceRetryBeanRetriers(ObjectProvider<RetriedClients> clients,
            ObjectProvider<RetryListener> listeners, ObjectProvider<RetrierCustomizer> customizers,
            ObjectProvider<CooldownStore> cooldownStore, RetryTimer timer) {
        return new BeanRetriers(clients, listeners, customizers, cooldownStore, timer);
    }

    /**
     * The one timer of the retried beans' timeouts and of the Spring AI models' waits: a daemon thread
     * started by the first task, stopped with the context.
     */
    @Bean
    RetryTimer inferenceRetryTimer() {
        return new RetryTimer();
    }

    /** Validates at startup even when beans are lazily initialised by default. */
    @Bean
    static LazyInitializationExcludeFilter inferenceRetriedClientsLazyInitializationExcludeFilter() {
        return LazyInitializationExcludeFilter.forBeanTypes(RetriedClients.class);
    }
}
