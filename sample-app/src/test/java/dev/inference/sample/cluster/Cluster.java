package dev.inference.sample.cluster;

import dev.inference.client.Authorizer;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.RetryClient;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.sample.SampleApplication;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Instances of the sample app, each a Spring application context of its own in this JVM with its own
 * web server, and whatever else a test opens for them. {@link #close()} closes everything in the
 * reverse order of opening, whatever fails on the way, so that a failing test leaves nothing running.
 */
final class Cluster implements AutoCloseable {

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /**
     * Takes a resource to close with the cluster, before everything opened earlier.
     *
     * @param resource the resource
     * @param <T> its type
     * @return the resource
     */
    <T extends AutoCloseable> T open(T resource) {
        this.opened.push(resource);
        return resource;
    }

    /**
     * Starts instances of the sample app, one after the other, named {@code instance-0} onwards; each
     * sends its name as its API key, so that the provider can tell them apart.
     *
     * @param count how many
     * @param properties command-line arguments for all of them, such as {@code --a.b=c}
     * @return the instances, started
     */
    List<Instance> start(int count, List<String> properties) {
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = "instance-" + i;
            String[] args = Stream.concat(Stream.of("--server.port=0", "--server.address=127.0.0.1",
                    "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                    "--management.metrics.use-global-registry=false", "--sample.inference.api-key=" + name),
                    properties.stream()).toArray(String[]::new);
            ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(args);
            open(context::close);
            instances.add(new Instance(name, context));
        }
        return List.copyOf(instances);
    }

    /**
     * Closes everything opened, the latest first, going on past failures.
     *
     * @throws IllegalStateException if anything failed to close, with the failures as its cause and
     *     suppressed exceptions
     */
    @Override
    public void close() {
        IllegalStateException failure = null;
        while (!this.opened.isEmpty()) {
            AutoCloseable resource = this.opened.pop();
            try {
                resource.close();
            }
            catch (Exception ex) {
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                if (failure == null) {
                    failure = new IllegalStateException("Could not close " + resource, ex);
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * One instance of the sample app.
     *
     * @param name its name, which it sends as its API key
     * @param context its application context
     */
    record Instance(String name, ConfigurableApplicationContext context) {

        /** Makes one chat call through the app's retrying client, as its controller does. */
        InferenceResponse chat(Duration timeout) {
            CallContext call = CallContext.withTimeout(timeout).withAuthorizer(this.context.getBean(Authorizer.class));
            return client().invoke(InferenceRequest.of("gpt-4o-mini", "Hello"), call);
        }

        /** Returns the provider account that the app's client cools down and waits for. */
        String cooldownKey() {
            return client().retrier().cooldownKey();
        }

        /** Returns the cool-down store that the app's client uses, if it has one. */
        Optional<CooldownStore> cooldownStore() {
            return client().retrier().cooldownStore();
        }

        private RetryClient client() {
            return this.context.getBean("openai", RetryClient.class);
        }

        @Override
        public String toString() {
            return this.name;
        }
    }
}
