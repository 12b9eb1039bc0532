package dev.inference.retry.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * retry metrics: a {@link dev.inference.retry.RetryListener} that counts every attempt, exhaustion
 * and scheduled wait of every retrying client in the application's {@link MeterRegistry}. Applies
 * only when Micrometer is on the class path and a {@code MeterRegistry} bean exists.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RetriedClients.class })
public final class InferenceRetryMetricsAutoConfiguration {

    @Bean
    MeterRetryListener inferenceRetryMeterListener(MeterRegistry meterRegistry, RetriedClients clients) {
        return new MeterRetryListener(meterRegistry, clients.policies().keySet());
    }
}
