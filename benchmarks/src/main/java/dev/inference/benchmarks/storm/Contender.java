package dev.inference.benchmarks.storm;

import io.github.resilience4j.retry.Retry;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.core.retry.RetryTemplate;

/**
 * One retry layer of the storm, each around the same Spring AI {@code OpenAiChatModel} built by Spring
 * AI's own auto-configuration: what differs is only the application's properties and what wraps
 * {@code call(prompt)}.
 *
 * <p>The starter retries beneath the model (it rebuilds the bean on a retried SDK HTTP client and sets
 * the SDK's own retries to zero); Spring AI alone keeps the SDK's retries as configured by default; the
 * three wrappers around the bean (Resilience4j, Spring Framework's {@code RetryTemplate}, none) run with
 * the SDK's retries off ({@code spring.ai.openai.chat.max-retries=0}), as a user adding a retry layer of
 * their own would, or every attempt would be up to four requests.
 */
enum Contender {

    /** The starter, each instance on its own: Retry-After honoured, nothing shared. */
    STARTER("starter, no store", true, false, List.of()),

    /** The starter sharing cool-downs through Redis, the rate-limit headers read, held calls spread. */
    STARTER_REDIS("starter, Redis store", true, true,
            List.of("inference.retry.cooldown.store=redis", "inference.retry.cooldown.release-spread=4s")),

    /** Spring AI's model as Spring AI configures it: the OpenAI SDK's own retries. */
    SPRING_AI("Spring AI 2.0.1 alone (SDK retries)", false, false, List.of()),

    /** Resilience4j's {@code Retry.ofDefaults}: 3 attempts, 500 ms apart, on any exception. */
    RESILIENCE4J("Resilience4j Retry, defaults", false, false, List.of("spring.ai.openai.chat.max-retries=0")),

    /** Spring Framework 7's {@code new RetryTemplate()}: 3 retries, 1 s apart, on any exception. */
    RETRY_TEMPLATE("Spring RetryTemplate, defaults", false, false, List.of("spring.ai.openai.chat.max-retries=0")),

    /** No retry anywhere. */
    NONE("no retry", false, false, List.of("spring.ai.openai.chat.max-retries=0"));

    /** The starter's policy in the storm: the one the docs and the sample use. */
    static final List<String> STARTER_POLICY = List.of("inference.retry.stable-retries=1",
            "inference.retry.stable-delay=200ms", "inference.retry.max-attempts=4", "inference.retry.max-delay=2s");

    private final String label;

    private final boolean starter;

    private final boolean redis;

    private final List<String> properties;

    Contender(String label, boolean starter, boolean redis, List<String> properties) {
        this.label = label;
        this.starter = starter;
        this.redis = redis;
        this.properties = properties;
    }

    /**
     * Returns the name the tables and the chart give it.
     *
     * @return a short label
     */
    String label() {
        return this.label;
    }

    /**
     * Tells whether it needs a Redis server.
     *
     * @return {@code true} for the Redis store
     */
    boolean redis() {
        return this.redis;
    }

    /**
     * Returns the application properties that make this contender, beside those of the provider.
     *
     * @return {@code key=value} pairs
     */
    List<String> properties() {
        if (!this.starter) {
            return concat(List.of("inference.retry.spring-ai.enabled=false"), this.properties);
        }
        return concat(STARTER_POLICY, this.properties);
    }

    /**
     * Wraps a call of the model in this contender's retry layer.
     *
     * @param call the model's {@code call(prompt)}
     * @return what the caller runs
     */
    Supplier<ChatResponse> around(Supplier<ChatResponse> call) {
        return switch (this) {
            case RESILIENCE4J -> Retry.decorateSupplier(Retry.ofDefaults("storm"), call);
            case RETRY_TEMPLATE -> {
                RetryTemplate template = new RetryTemplate();
                yield () -> template.invoke(call);
            }
            default -> call;
        };
    }

    private static List<String> concat(List<String> first, List<String> second) {
        return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
    }
}
