package dev.inference.retry.autoconfigure;

import dev.inference.retry.autoconfigure.observation.ObservationAttemptObserver;
import dev.inference.retry.autoconfigure.observation.RetryAttemptObservationConvention;
import dev.inference.retry.time.ShutdownSignal;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of what
 * an operator needs from the retrying clients:
 * <ul>
 * <li>a {@link ShutdownSignal} given to every retrying client and fired as soon as the application
 * context begins to close, so that every backoff or cool-down wait ends at once with a
 * {@link dev.inference.failure.ShutdownException} and no retry starts afterwards;</li>
 * <li>with {@code inference.retry.observations.enabled=true} and an {@link ObservationRegistry}
 * bean, one Micrometer observation per attempt.</li>
 * </ul>
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(RetriedClients.class)
public final class InferenceRetryOperationsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShutdownSignal inferenceRetryShutdownSignal() {
        return ShutdownSignal.create();
    }

    @Bean
    RetrierCustomizer inferenceRetryShutdownSignalCustomizer(ShutdownSignal inferenceRetryShutdownSignal) {
        return (beanName, builder) -> builder.shutdownSignal(inferenceRetryShutdownSignal);
    }

    /**
     * Fires the shutdown signal when the application context begins to close: before the web server's
     * graceful shutdown waits, for up to {@code spring.lifecycle.timeout-per-shutdown-phase}, for the
     * requests in flight. A request whose call waits on a five-minute {@code Retry-After} would hold
     * it for that whole time and then be cut; ending the wait first lets the request be answered, at
     * once, with the shutdown.
     */
    @Bean
    static OnContextClose inferenceRetryShutdownOnContextClose(ObjectProvider<ShutdownSignal> signal) {
        return new OnContextClose(() -> signal.ifAvailable(ShutdownSignal::shutDown));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnBooleanProperty("inference.retry.observations.enabled")
    static class ObservationConfiguration {

        @Bean
        RetrierCustomizer inferenceRetryObservationCustomizer(ObservationRegistry observationRegistry,
                ObjectProvider<RetryAttemptObservationConvention> convention) {
            ObservationAttemptObserver observer = new ObservationAttemptObserver(observationRegistry,
                    convention.getIfAvailable());
            return (beanName, builder) -> builder.observer(observer);
        }
    }
}
