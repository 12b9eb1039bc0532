package dev.inference.retry.springai;

import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import java.util.Locale;

/**
 * A Spring AI model bean that the application retries has a provider client that would retry each
 * exchange itself: every attempt of ours would become several requests (3 attempts × 4 client attempts
 * = 12 requests). Thrown at startup, while the bean is post-processed, so the application fails to start
 * instead of running with attempts that multiply, or with the client's setting silently overridden. The
 * startup failure report names the property, its value in effect and where it was set, and the fix.
 * One type for every kind of model ({@link #chatModel} for a chat model).
 *
 * <p>The fix is to set the client's retries to zero (the starter does so for Spring AI's
 * auto-configured models when the application leaves the setting unset), or to leave the bean's
 * retries to its client with {@code inference.retry.clients.<bean>.enabled=false}.
 */
public class ModelClientRetriesException extends InvalidRetryPropertyException {

    private static final long serialVersionUID = 1L;

    /** The retries the client asks for, in effect for the bean. */
    private final int maxRetries;

    /**
     * Creates the exception.
     *
     * @param kind what the bean is, as the startup report names it: its Spring AI interface's simple
     *     name, such as {@code EmbeddingModel}
     * @param beanName the model bean's name
     * @param maxRetries the retries its client makes per exchange, more than zero
     * @param property the Spring AI property that sets them for the auto-configured model, such as
     *     {@code spring.ai.openai.embedding.max-retries}
     * @param note a sentence on how Spring AI resolves that property, ending with a space, or an empty
     *     string
     */
    public ModelClientRetriesException(String kind, String beanName, int maxRetries, String property, String note) {
        super(kind, beanName, property, maxRetries,
                "must be 0 for " + inWords(kind) + " that inference-retry retries: its client would retry each "
                        + "exchange " + maxRetries + " more time(s) itself, so each attempt would make up to "
                        + (maxRetries + 1) + " requests",
                "Set " + property + "=0, or remove it: the starter sets it to 0 when it is unset. " + note
                        + "For " + inWords(kind) + " the application builds itself, build its provider client with "
                        + "maxRetries(0). To keep the client's own retries instead, set inference.retry.clients."
                        + beanName + ".enabled=false.");
        this.maxRetries = maxRetries;
    }

    /**
     * Creates the exception for a chat model bean.
     *
     * @param beanName the chat model bean's name
     * @param maxRetries the retries its client makes per exchange, more than zero
     * @param property the Spring AI property that sets them for the auto-configured model, such as
     *     {@code spring.ai.openai.chat.max-retries}
     * @param note a sentence on how Spring AI resolves that property, ending with a space, or an empty
     *     string
     * @return the exception, whose report calls the bean a {@code ChatModel}
     */
    public static ModelClientRetriesException chatModel(String beanName, int maxRetries, String property,
            String note) {
        return new ModelClientRetriesException("ChatModel", beanName, maxRetries, property, note);
    }

    /**
     * Returns the retries the bean's client makes per exchange.
     *
     * @return more than zero
     */
    public int maxRetries() {
        return this.maxRetries;
    }

    /** {@code ChatModel} as "a chat model", {@code EmbeddingModel} as "an embedding model". */
    private static String inWords(String kind) {
        String words = kind.replaceAll("(?<=[a-z])(?=[A-Z])", " ").toLowerCase(Locale.ROOT);
        return ("aeiou".indexOf(words.charAt(0)) >= 0 ? "an " : "a ") + words;
    }
}
