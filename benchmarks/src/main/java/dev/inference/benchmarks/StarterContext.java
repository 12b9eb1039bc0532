package dev.inference.benchmarks;

import dev.inference.client.InferenceClient;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * An application context holding one {@code InferenceClient} bean, {@value #CLIENT}, wrapped by the
 * starter's auto-configurations exactly as in an application: with a {@link SimpleMeterRegistry} bean,
 * so that the retry metrics are attached the way every starter user runs them.
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
        this.context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark",
                Map.of("inference.retry.stable-retries", "0", "inference.retry.stable-delay", "1ns",
                        "inference.retry.max-attempts", Integer.toString(maxAttempts), "inference.retry.max-delay",
                        "1ns")));
        this.context.register(RetryAutoConfigurations.class);
        this.context.registerBean(SimpleMeterRegistry.class);
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

    /** The starter's two auto-configurations that wrap clients and count their attempts. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ InferenceRetryAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class })
    static class RetryAutoConfigurations {

    }
}
