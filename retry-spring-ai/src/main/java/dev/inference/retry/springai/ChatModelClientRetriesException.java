package dev.inference.retry.springai;

/**
 * A chat model bean that the application retries has a provider client that would retry each exchange
 * itself: every attempt of ours would become several requests (3 attempts × 4 client attempts = 12
 * requests). Thrown at startup, while the bean is post-processed; see {@link ModelClientRetriesException}
 * for the report and the fix.
 */
public class ChatModelClientRetriesException extends ModelClientRetriesException {

    private static final long serialVersionUID = 1L;

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
        super("ChatModel", beanName, maxRetries, property, note);
    }
}
