package dev.inference.retry.autoconfigure;

import dev.inference.retry.cooldown.CooldownStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * retry metrics: a {@link dev.inference.retry.RetryListener} that counts every attempt, exhaustion
 * and scheduled wait of every retrying client in the application's {@link MeterRegistry}. Applies
 * only when Micrometer is on the class path and a {@code MeterRegistry} bean exists. An application
 * that declares its own {@link MeterRetryListener} bean gets that one attached instead, so that no
 * attempt is counted twice.
 */
@AutoConfiguration(after = { InferenceRetryAutoConfiguration.class, InferenceRetryProtectionAutoConfiguration.class },
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RetriedClients.class })
public final class InferenceRetryMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MeterRetryListener inferenceRetryMeterListener(MeterRegistry meterRegistry) {
        // The clients' names are known only once they are made: their meters are registered below.
        return new MeterRetryListener(meterRegistry, List.of());
    }

    /**
     * Registers at zero, once every eager singleton exists, the exhausted counters and backoff
     * timers of every retried client, under the name the client reports: its bean name, or its own
     * name when the bean is a {@code RetryClient} of the application's.
     */
    @Bean
    SmartInitializingSingleton inferenceRetryMetersAtZero(MeterRegistry meterRegistry, RetriedClients clients,
            ObjectProvider<CooldownStore> cooldownStore) {
        // The listener's constructor registers the named clients' meters; the listener is not kept,
        // since the registry hands every listener the same meters.
        return () -> {
            new MeterRetryListener(meterRegistry,
                    clients.clients().values().stream().map(RetriedClients.Retrying::name).distinct().toList());
            for (RetriedClients.Retrying client : clients.clients().values()) {
                if (client.budget() != null) {
                    MeterRetryListener.registerBudgetMeters(meterRegistry, client.name());
                }
                if (cooldownStore.getIfAvailable() != null) {
                    MeterRetryListener.registerCooldownMeters(meterRegistry, client.name());
                }
                if (client.timeouts().streamIdle().isPresent()) {
                    MeterRetryListener.registerStallMeters(meterRegistry, client.name());
                }
            }
        };
    }
}
