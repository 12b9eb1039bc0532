package dev.inference.retry.springai;

import java.util.Objects;

/**
 * A chat model bean that the application retries has a provider client that would retry each exchange
 * itself: every attempt of ours would become several requests (3 attempts × 4 client attempts = 12
 * requests). Thrown at startup, while the bean is post-processed, so the application fails to start
 * instead of running with attempts that multiply, or with the client's setting silently overridden.
 *
 * <p>The fix is to set the client's retries to zero (the starter does so for Spring AI's
 * auto-configured models when the application leaves the setting unset), or to leave the bean's
 * retries to its client with {@code inference.retry.clients.<bean>.enabled=false}.
 */
public class ChatModelClientRetriesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String beanName;

    private final int maxRetries;

    private final String property;

    private final String action;

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
        super("The chat model bean '" + Objects.requireNonNull(beanName, "beanName must not be null")
                + "' is retried by inference-retry, but its provider client would retry each exchange " + maxRetries
                + " more time(s) itself (" + Objects.requireNonNull(property, "property must not be null")
                + " in effect: " + maxRetries + "), so each attempt would make up to " + (maxRetries + 1)
                + " requests");
        this.beanName = beanName;
        this.maxRetries = maxRetries;
        this.property = property;
        this.action = "Set " + property + "=0, or remove it: the starter sets it to 0 when it is unset. "
                + Objects.requireNonNull(note, "note must not be null") + "For a chat model the application builds "
                + "itself, build its provider client with maxRetries(0). To keep the client's own retries instead, "
                + "set inference.retry.clients." + beanName + ".enabled=false.";
    }

    /**
     * Returns the name of the bean whose client retries.
     *
     * @return the bean name
     */
    public String beanName() {
        return this.beanName;
    }

    /**
     * Returns the retries the bean's client makes per exchange.
     *
     * @return more than zero
     */
    public int maxRetries() {
        return this.maxRetries;
    }

    /**
     * Returns the Spring AI property that sets the client's retries for the auto-configured model.
     *
     * @return the property's name
     */
    public String property() {
        return this.property;
    }

    /**
     * Returns what to do about it, as the startup failure report's Action.
     *
     * @return one or more sentences naming the property and the fix
     */
    public String action() {
        return this.action;
    }
}
