package dev.inference.retry.autoconfigure;

import dev.inference.retry.ShutdownSignal;
import dev.inference.retry.autoconfigure.observation.ObservationAttemptObserver;
import dev.inference.retry.autoconfigure.observation.RetryAttemptObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;

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
    RetryClientBuilderCustomizer inferenceRetryShutdownSignalCustomizer(ShutdownSignal inferenceRetryShutdownSignal) {
        return (beanName, builder) -> builder.shutdownSignal(inferenceRetryShutdownSignal);
    }

    @Bean
    static ShutdownOnContextClose inferenceRetryShutdownOnContextClose(ObjectProvider<ShutdownSignal> signal) {
        return new ShutdownOnContextClose(signal);
    }

    /**
     * Fires the shutdown signal when the application context begins to close.
     *
     * <p>Why {@link ContextClosedEvent}: the context publishes it first thing when it closes, before it
     * stops any {@link org.springframework.context.Lifecycle} bean. The web server's graceful shutdown
     * is such a bean: it waits, for up to {@code spring.lifecycle.timeout-per-shutdown-phase}, for
     * the requests in flight to be answered. A request whose call waits on a five-minute
     * {@code Retry-After} would hold it for that whole time and then be cut; ending the wait first
     * lets the request be answered, at once, with the shutdown. A {@code SmartLifecycle} in a high
     * phase would run early enough as well, but it is also stopped by {@code context.stop()}, which
     * does not close anything, and the signal cannot be taken back.
     */
    static final class ShutdownOnContextClose implements ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

        private final ObjectProvider<ShutdownSignal> signal;

        private @Nullable ApplicationContext context;

        ShutdownOnContextClose(ObjectProvider<ShutdownSignal> signal) {
            this.signal = signal;
        }

        @Override
        public void setApplicationContext(ApplicationContext context) {
            this.context = context;
        }

        @Override
        public void onApplicationEvent(ContextClosedEvent event) {
            // A child context closing (an actuator's, say) is not this application shutting down.
            if (event.getApplicationContext() == this.context) {
                this.signal.ifAvailable(ShutdownSignal::shutDown);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnBooleanProperty("inference.retry.observations.enabled")
    static class ObservationConfiguration {

        @Bean
        RetryClientBuilderCustomizer inferenceRetryObservationCustomizer(ObservationRegistry observationRegistry,
                ObjectProvider<RetryAttemptObservationConvention> convention) {
            ObservationAttemptObserver observer = new ObservationAttemptObserver(observationRegistry,
                    convention.getIfAvailable());
            return (beanName, builder) -> builder.observer(observer);
        }
    }
}
