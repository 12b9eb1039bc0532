package dev.inference.retry.springai;

import dev.inference.retry.autoconfigure.InvalidRetryPropertyException;

/**
 * A chat model bean that the application retries has a provider client that would retry each exchange
 * itself: every attempt of ours would become several requests (3 attempts × 4 client attempts = 12
 * requests). Thrown at startup, while the bean is post-processed, so the application fails to start
 * instead of running with attempts that multiply, or with the client's setting silently overridden.
 * The startup failure report names the property, its value in effect and where it was set, and the fix.
 *
 * <p>The fix is to set the client's retries to zero (the starter does so for Spring AI's
 * auto-configured models when the application leaves the setting unset), or to leave the bean's
 * retries to its client with {@code inference.retry.clients.<bean>.enabled=false}.
 */
public class ChatModelClientRetriesException extends InvalidRetryPropertyException {

    private static final long serialVersionUID = 1L;

    /** The retries the client asks for, in effect for the bean. */
    private final int maxRetries;

    /**
     * Creates the exception.
     *
     * @param beanName the chat model bean's name
     * @param maxRetries the retries its client makes per exchange, more than zero
     * @param property the Spring AI property that sets them for the auto-configured model, such as
     *     {@code spring.ai.openai.chat.max-retries}
     * @param note a sentence on how Spring AI resolves that property, ending with a space, or an empty
     *     string
     */
    public ChatModelClientRetriesException(String beanName, int maxRetries, String property, String note) {
        super("ChatModel", beanName, property, maxRetries,
                "must be 0 for a chat model that inference-retry retries: its client would retry each exchange "
                        + maxRetries + " more time(s) itself, so each attempt would make up to " + (maxRetries + 1)
                        + " requests",
                "Set " + property + "=0, or remove it: the starter sets it to 0 when it is unset. " + note
                        + "For a chat model the application builds itself, build its provider client with "
                        + "maxRetries(0). To keep the client's own retries instead, set inference.retry.clients."
                        + beanName + ".enabled=false.");
        this.maxRetries = maxRetries;
    }

    /**
     * Returns the retries the bean's client makes per exchange.
     *
     * @return more than zero
     */
    public int maxRetries() {
        return this.maxRetries;
    }
}
