package dev.inference.retry.autoconfigure.refresh;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.fallback.InferenceRetryFallbackAutoConfiguration;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * runtime refresh (SPEC §13): with Spring Cloud Context on the class path, an
 * {@link EnvironmentChangeEvent} whose keys include an {@code inference.retry.*} key refreshes the
 * whole retry configuration through {@link RetryRefresh}, and {@code inference.retry.refresh{result}}
 * counts the refreshes applied and rejected (registered at 0 when a {@code MeterRegistry} bean
 * exists). With {@code inference.retry.enabled=false}, or without Spring Cloud Context, nothing here
 * is loaded.
 */
@AutoConfiguration(after = { InferenceRetryAutoConfiguration.class, InferenceRetryFallbackAutoConfiguration.class },
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(EnvironmentChangeEvent.class)
@ConditionalOnBean(InferenceRetryProperties.class)
public final class InferenceRetryRefreshAutoConfiguration {

    @Bean
    RetryRefresh inferenceRetryRefresh(ListableBeanFactory beanFactory, Environment environment) {
        return RetryRefresh.of(beanFactory, environment);
    }

    @Bean
    RetryRefreshListener inferenceRetryRefreshListener(RetryRefresh refresh, ObjectProvider<RefreshMeters> meters) {
        return new RetryRefreshListener(refresh, meters);
    }

    /** Counts the refreshes. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class RefreshMetricsConfiguration {

        @Bean
        RefreshMeters inferenceRetryRefreshMeters(MeterRegistry registry) {
            return new RefreshMeters(registry);
        }
    }
}
