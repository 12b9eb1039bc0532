package dev.inference.benchmarks;

import dev.inference.client.InferenceClient;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryOperationsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * An application context holding one {@code InferenceClient} bean, {@value #CLIENT}, wrapped by the
 * starter's auto-configurations exactly as in an application: with a {@link SimpleMeterRegistry} bean
 * (or the {@code MeterRegistry} given), so that the retry metrics are attached the way every starter
 * user runs them.
 */
final class StarterContext implements AutoCloseable {

    /** The name of the client bean, and so of the retrying client and its {@code client} tag. */
    static final String CLIENT = "bench";

    private final AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();

    /**
     * Starts the context.
     *
     * @param client the client bean to wrap
     * @param maxAttempts the attempts allowed in all, set as {@code inference.retry.max-attempts}; the
     *     delays are those of {@link Retriers#minimalPolicy(int)}
     */
    StarterContext(InferenceClient client, int maxAttempts) {
        this(client, maxAttempts, false);
    }

    /**
     * Starts the context, with or without an observation per attempt.
     *
     * @param client the client bean to wrap
     * @param maxAttempts the attempts allowed in all
     * @param observed whether to set {@code inference.retry.observations.enabled=true}, with an
     *     {@link ObservationRegistry} whose handler records a timer per observation in the meter
     *     registry, as the actuator sets it up
     */
    StarterContext(InferenceClient client, int maxAttempts, boolean observed) {
        this(client, maxAttempts, observed, new SimpleMeterRegistry());
    }

    /**
     * Starts the context with the given meter registry as its {@code MeterRegistry} bean.
     *
     * @param client the client bean to wrap
     * @param maxAttempts the attempts allowed in all
     * @param observed whether to set {@code inference.retry.observations.enabled=true}
     * @param meterRegistry the registry bean, which the retry metrics count into
     */
    StarterContext(InferenceClient client, int maxAttempts, boolean observed, MeterRegistry meterRegistry) {
        this.context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark",
                Map.of("inference.retry.stable-retries", "0", "inference.retry.stable-delay", "1ns",
                        "inference.retry.max-attempts", Integer.toString(maxAttempts), "inference.retry.max-delay",
                        "1ns", "inference.retry.observations.enabled", Boolean.toString(observed))));
        this.context.register(RetryAutoConfigurations.class);
        this.context.registerBean(MeterRegistry.class, () -> meterRegistry);
        ObservationRegistry observationRegistry = ObservationRegistry.create();
        observationRegistry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
        this.context.registerBean(ObservationRegistry.class, () -> observationRegistry);
        this.context.registerBean(CLIENT, InferenceClient.class, () -> client);
        this.context.refresh();
    }

    /**
     * Returns the wrapped client bean, as an application injects it.
     *
     * @return the retrying client
     */
    InferenceClient client() {
        return this.context.getBean(CLIENT, InferenceClient.class);
    }

    /**
     * Returns the registry the meters are in.
     *
     * @return the registry bean
     */
    MeterRegistry registry() {
        return this.context.getBean(MeterRegistry.class);
    }

    /** Closes the context. */
    @Override
    public void close() {
        this.context.close();
    }

    /** The starter's auto-configurations that wrap clients, count their attempts and observe them. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ InferenceRetryAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class,
            InferenceRetryOperationsAutoConfiguration.class, InferenceRetryProtectionAutoConfiguration.class })
    static class RetryAutoConfigurations {

    }
}
