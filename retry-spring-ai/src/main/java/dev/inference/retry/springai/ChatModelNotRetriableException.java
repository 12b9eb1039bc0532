package dev.inference.retry.springai;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A chat model bean that the application asked to retry cannot be: its provider client is not one whose
 * HTTP exchanges this module knows how to reach beneath the bean. Thrown at startup, while the bean is
 * post-processed, so the application fails to start rather than run without the retries it asked for.
 */
public class ChatModelNotRetriableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The name of the chat model bean that cannot be retried. */
    private final String beanName;

    /**
     * Creates the exception.
     *
     * @param beanName the chat model bean's name
     * @param reason why it cannot be retried, as a sentence without its final full stop
     * @param cause what the inspection of the bean threw, or {@code null}
     */
    public ChatModelNotRetriableException(String beanName, String reason, @Nullable Throwable cause) {
        super("Cannot retry the chat model bean '" + Objects.requireNonNull(beanName, "beanName must not be null")
                + "': " + reason + ". To start without retrying it, set inference.retry.clients." + beanName
                + ".enabled=false (or inference.retry.spring-ai.enabled=false for every Spring AI model)", cause);
        this.beanName = beanName;
    }

    /**
     * Returns the name of the bean that cannot be retried.
     *
     * @return the bean name
     */
    public String beanName() {
        return this.beanName;
    }
}
