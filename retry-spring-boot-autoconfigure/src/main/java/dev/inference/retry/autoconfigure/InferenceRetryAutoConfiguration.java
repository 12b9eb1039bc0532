package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.CooldownStore;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
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
 * {@code inference.retry.*}.
 *
 * <p>At startup, {@code @Lazy} beans included, every entry under {@code inference.retry.clients}
 * must name an {@code InferenceClient} bean and every bean to wrap must resolve to a complete, valid
 * policy; otherwise the application fails to start with an {@link InvalidRetryPropertyException}. A
 * bean whose object is a {@code RetryClient} already is not wrapped and needs no policy, whether it
 * is declared as one or as a plain {@code InferenceClient}, eager or {@code @Lazy}: see
 * {@link RetriedClients} for how that is told without making lazy beans that need not be made.
 * Every {@link RetryListener} bean is attached to every retrying client's
 * {@link dev.inference.retry.Retrier}, and every {@link RetrierCustomizer} bean then
 * customizes the retrier's builder. Beans of the other types
 * declared as {@link RetriedBeanType} beans (Spring AI's chat models, by the starter's Spring AI
 * module) are validated the same way, and get their retrier from {@link BeanRetriers}.
 * With {@code inference.retry.enabled=false} none of this happens; a value of it that is not a
 * boolean fails startup.
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
            ObjectProvider<CooldownStore> cooldownStore) {
        return new BeanRetriers(clients, listeners, customizers, cooldownStore);
    }

    /** Validates at startup even when beans are lazily initialised by default. */
    @Bean
    static LazyInitializationExcludeFilter inferenceRetriedClientsLazyInitializationExcludeFilter() {
        return LazyInitializationExcludeFilter.forBeanTypes(RetriedClients.class);
    }
}
