package dev.inference.benchmarks.storm;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The application instances of one contender: each a Spring Boot application of its own, configured
 * as a user configures one (auto-configuration and properties only, no class of the starter named), with
 * Spring AI's OpenAI chat model pointed at the storm's provider. The callers use them in turn.
 *
 * <p>Trap: the instances share a JVM, so they share its threads and the JIT; what the starter shares
 * between them goes only through Redis, as between processes.
 */
final class StormInstances implements AutoCloseable {

    private static final Prompt PROMPT = new Prompt("Say hello");

    private final List<ConfigurableApplicationContext> contexts;

    private final List<Supplier<ChatResponse>> calls;

    private StormInstances(List<ConfigurableApplicationContext> contexts, List<Supplier<ChatResponse>> calls) {
        this.contexts = contexts;
        this.calls = calls;
    }

    /**
     * Starts the instances.
     *
     * @param contender whose properties and retry layer they have
     * @param count how many
     * @param baseUrl the provider's base URL
     * @param redisPort the Redis server's port, or {@code 0} without one
     * @return the running instances
     */
    static StormInstances start(Contender contender, int count, String baseUrl, int redisPort) {
        List<ConfigurableApplicationContext> contexts = new ArrayList<>();
        List<Supplier<ChatResponse>> calls = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                List<String> properties = new ArrayList<>(List.of("spring.main.banner-mode=off",
                        "spring.main.log-startup-info=false", "logging.level.root=warn",
                        "spring.application.name=storm", "spring.ai.model.chat=openai",
                        "spring.ai.model.embedding=none", "spring.ai.model.image=none",
                        "spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
                        "spring.ai.model.moderation=none", "spring.ai.openai.base-url=" + baseUrl,
                        "spring.ai.openai.api-key=storm"));
                if (redisPort != 0) {
                    properties.add("spring.data.redis.host=127.0.0.1");
                    properties.add("spring.data.redis.port=" + redisPort);
                }
                properties.addAll(contender.properties());
                ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                    .web(WebApplicationType.NONE)
                    .properties(properties.toArray(String[]::new))
                    .run();
                contexts.add(context);
                ChatModel model = context.getBean("openAiChatModel", ChatModel.class);
                calls.add(contender.around(() -> model.call(PROMPT)));
            }
        }
        catch (RuntimeException ex) {
            contexts.forEach(ConfigurableApplicationContext::close);
            throw ex;
        }
        return new StormInstances(contexts, calls);
    }

    /**
     * Returns the call of one instance.
     *
     * @param caller the caller's number; callers take the instances in turn
     * @return that instance's call, through its contender's retry layer
     */
    Supplier<ChatResponse> call(int caller) {
        return this.calls.get(caller % this.calls.size());
    }

    /**
     * Returns how many instances there are.
     *
     * @return their number
     */
    int size() {
        return this.calls.size();
    }

    @Override
    public void close() {
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    /** An application: Spring Boot's auto-configuration, and the meter registry an actuator would bring. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
