package dev.inference.retry.springai;

import org.jspecify.annotations.Nullable;

/**
 * A chat model bean that the application asked to retry cannot be: its provider client is not one whose
 * HTTP exchanges this module knows how to reach beneath the bean, its class cannot be proxied, or it is a
 * chat model of Spring AI's own that no provider integration of this module retries. Thrown at startup,
 * while the bean is post-processed, so the application fails to start rather than run without the
 * retries it asked for.
 */
public class ChatModelNotRetriableException extends ModelNotRetriableException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param beanName the chat model bean's name
     * @param reason why it cannot be retried, as a sentence without its final full stop
     * @param cause what the inspection of the bean threw, or {@code null}
     * @throws NullPointerException if {@code beanName} is {@code null}
     */
    public ChatModelNotRetriableException(String beanName, String reason, @Nullable Throwable cause) {
        super("chat model", beanName, reason, cause);
    }
}
