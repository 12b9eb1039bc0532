package dev.inference.benchmarks.springai;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryOperationsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiModelRetriersAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One application, started as {@link org.springframework.boot.SpringApplication} starts an application,
 * with Spring AI 2.0.1's OpenAI and Anthropic chat auto-configurations (beans {@value #OPENAI} and
 * {@value #ANTHROPIC}) pointed at a {@link LoopbackProvider} (or answered by the {@link InMemoryProvider}),
 * the starter's auto-configurations and a {@link SimpleMeterRegistry}, as an application with the
 * actuator has one.
 *
 * <p>With the starter, the models are rebuilt and retried, counted in {@code inference.retry.attempts};
 * left alone ({@code inference.retry.spring-ai.enabled=false}), they are exactly as Spring AI builds
 * them, their SDK clients keeping Spring AI's own retry setting. Both run the same auto-configurations
 * and the same environment post-processors, so the only difference is the starter's work on the models.
 * The auto-configurations are named rather than discovered, so that nothing else of the benchmark jar's
 * class path is configured.
 */
final class ChatModelContext implements AutoCloseable {

    static final String OPENAI = "openAiChatModel";

    static final String ANTHROPIC = "anthropicChatModel";

    private final ConfigurableApplicationContext context;

    private final boolean retried;

    private ChatModelContext(ConfigurableApplicationContext context, boolean retried) {
        this.context = context;
        this.retried = retried;
    }

    /**
     * Starts the application.
     *
     * @param provider the provider both models call
     * @param retried {@code true} for the starter's models, {@code false} for Spring AI alone
     * @param timeouts {@code true} to set the three timeouts of the starter's models, 30 s each, long
     *        enough never to pass
     * @return the running application
     */
    static ChatModelContext start(LoopbackProvider provider, boolean retried, boolean timeouts) {
        return start(provider.root(), retried, timeouts, Application.class);
    }

    /**
     * Starts the application with the starter's models answered by the {@link InMemoryProvider}, without
     * a socket: what the client's side does, the network left out.
     *
     * @param timeouts {@code true} to set the three timeouts of the starter's models, 30 s each, long
     *        enough never to pass
     * @return the running application
     */
    static ChatModelContext startInMemory(boolean timeouts) {
        // Nothing is ever sent there: the in-memory provider answers before OkHttp connects.
        return start("http://provider.invalid", true, timeouts, Application.class, InMemory.class);
    }

    private static ChatModelContext start(String root, boolean retried, boolean timeouts, Class<?>... sources) {
        List<String> properties = new ArrayList<>(List.of("spring.main.banner-mode=off",
                "spring.main.log-startup-info=false", "logging.level.root=warn",
                "spring.ai.openai.base-url=" + root + "/v1", "spring.ai.openai.api-key=harness",
                "spring.ai.anthropic.base-url=" + root, "spring.ai.anthropic.api-key=harness",
                "inference.retry.stable-retries=1", "inference.retry.stable-delay=200ms",
                "inference.retry.max-attempts=4", "inference.retry.max-delay=2s",
                "inference.retry.spring-ai.enabled=" + retried));
        if (timeouts) {
            properties.addAll(List.of("inference.retry.attempt-timeout=30s", "inference.retry.first-token-timeout=30s",
                    "inference.retry.stream-idle-timeout=30s"));
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
        return new ChatModelContext(context, retried);
    }

    /**
     * Returns a chat model bean.
     *
     * @param <T> its class
     * @param name {@link #OPENAI} or {@link #ANTHROPIC}
     * @param type its class
     * @return the bean
     */
    <T> T model(String name, Class<T> type) {
        return this.context.getBean(name, type);
    }

    /**
     * Returns how many attempts of a model the starter counted.
     *
     * @param name the model's bean name
     * @return the count, {@code 0} for Spring AI alone, whose models nothing counts
     */
    double attempts(String name) {
        MeterRegistry registry = this.context.getBean(MeterRegistry.class);
        return registry.find("inference.retry.attempts").tag("client", name).counters().stream()
            .mapToDouble((counter) -> counter.count())
            .sum();
    }

    /**
     * Tells which of the two this is.
     *
     * @return {@code true} for the starter's models
     */
    boolean retried() {
        return this.retried;
    }

    @Override
    public void close() {
        this.context.close();
    }

    /** The application: Spring AI's two chat models, and the starter's auto-configurations. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ OpenAiChatAutoConfiguration.class, AnthropicChatAutoConfiguration.class,
            ToolCallingAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
            InferenceRetryProtectionAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class,
            InferenceRetryOperationsAutoConfiguration.class, SpringAiModelRetriersAutoConfiguration.class,
            SpringAiRetryAutoConfiguration.class })
    static class Application {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /**
     * The two models' OkHttp clients answered in memory ({@link InMemoryProvider}), their calls
     * dispatched on daemon threads, as many as needed and kept a minute as OkHttp's own dispatcher keeps
     * them, so that a JMH fork can end: Spring AI's dispatcher threads are not daemons, and nothing
     * stops them when the application closes.
     */
    @Configuration(proxyBeanMethods = false)
    static class InMemory {

        private static final ExecutorService DISPATCHER = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
                TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
                    Thread thread = new Thread(task, "in-memory-dispatcher");
                    thread.setDaemon(true);
                    return thread;
                });

        @Bean
        OpenAiHttpClientBuilderCustomizer inMemoryOpenAi() {
            return (builder) -> builder.interceptor(InMemoryProvider.INSTANCE).dispatcherExecutorService(DISPATCHER);
        }

        @Bean
        AnthropicHttpClientBuilderCustomizer inMemoryAnthropic() {
            return (builder) -> builder.interceptor(InMemoryProvider.INSTANCE).dispatcherExecutorService(DISPATCHER);
        }
    }
}
