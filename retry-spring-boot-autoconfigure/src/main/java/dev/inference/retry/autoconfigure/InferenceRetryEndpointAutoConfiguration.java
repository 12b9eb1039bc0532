package dev.inference.retry.autoconfigure;

import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.cooldown.CooldownStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * {@link InferenceRetryEndpoint}. Applies only when the actuator is on the class path and the
 * endpoint is available (accessible and exposed).
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RetriedClients.class)
@ConditionalOnAvailableEndpoint(InferenceRetryEndpoint.class)
public final class InferenceRetryEndpointAutoConfiguration {

    @Bean
    InferenceRetryEndpoint inferenceRetryEndpoint(RetriedClients clients, ObjectProvider<CooldownStore> cooldownStore,
            ObjectProvider<FallbackChains> fallbacks) {
        return new InferenceRetryEndpoint(clients, cooldownStore, fallbacks);
    }
}
