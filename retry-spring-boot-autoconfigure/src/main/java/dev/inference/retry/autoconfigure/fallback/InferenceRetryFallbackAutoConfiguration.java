package dev.inference.retry.autoconfigure.fallback;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.fallback.FallbackListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * fallback chains declared under {@code inference.retry.fallbacks}: each is validated and registered
 * as a bean of its members' type by {@link FallbackChainRegistrar}, made by {@link FallbackChains},
 * and counted by a {@link FallbackMeterListener} when a {@code MeterRegistry} bean exists. With
 * {@code inference.retry.enabled=false}, no chain is registered.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class)
@ConditionalOnBean(InferenceRetryProperties.class)
public final class InferenceRetryFallbackAutoConfiguration {

    @Bean
    static FallbackChainRegistrar inferenceRetryFallbackChainRegistrar(Environment environment) {
        return new FallbackChainRegistrar(environment);
    }

    @Bean(FallbackChains.BEAN_NAME)
    FallbackChains inferenceRetryFallbackChains(BeanFactory beanFactory, InferenceRetryProperties properties,
            ObjectProvider<FallbackListener> listeners, ObjectProvider<CooldownStore> cooldownStore) {
        return new FallbackChains(beanFactory, properties, listeners, cooldownStore);
    }

    /** Counts the chains' fall-overs and calls. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class FallbackMetricsConfiguration {

        @Bean
        FallbackMeterListener inferenceRetryFallbackMeterListener(MeterRegistry registry,
                InferenceRetryProperties properties) {
            return new FallbackMeterListener(registry, properties.getFallbacks());
        }
    }
}
