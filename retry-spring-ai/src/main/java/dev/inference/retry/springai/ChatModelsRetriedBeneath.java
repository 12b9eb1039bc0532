package dev.inference.retry.springai;

import java.util.Set;

/**
 * The chat model classes whose beans this module retries beneath the bean, in the model's own HTTP
 * exchange, each by a post-processor of its own in {@link SpringAiRetryAutoConfiguration}: OpenAI's and
 * Anthropic's models on their SDK's HTTP client, Ollama's on its {@code RestClient} and
 * {@code WebClient}. The post-processor that retries any other chat model above its exchange
 * ({@link ChatModelProxyRetryPostProcessor}) leaves beans of these classes, and of their subclasses,
 * alone, so that no bean is retried twice. A class is named here by the same change that adds its
 * post-processor.
 *
 * <p>Named, not referenced, so that a class is never loaded to answer: an application has at most some of
 * these models on its class path.
 */
final class ChatModelsRetriedBeneath {

    /** The fully qualified names of the classes. */
    static final Set<String> CLASS_NAMES = Set.of("org.springframework.ai.openai.OpenAiChatModel",
            "org.springframework.ai.anthropic.AnthropicChatModel", "org.springframework.ai.ollama.OllamaChatModel");

    private ChatModelsRetriedBeneath() {
    }

    /**
     * Tells whether beans of a class are retried beneath the bean.
     *
     * @param type the bean's class
     * @return {@code true} when the class, or one of its superclasses, is one of {@link #CLASS_NAMES}
     */
    static boolean includes(Class<?> type) {
        for (Class<?> each = type; each != null; each = each.getSuperclass()) {
            if (CLASS_NAMES.contains(each.getName())) {
                return true;
            }
        }
        return false;
    }
}
