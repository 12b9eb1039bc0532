package dev.inference.retry.springai;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Spring AI model bean that the application asked to retry cannot be: its provider client is not one
 * whose HTTP exchanges this module knows how to reach, or its class is one this module does not know.
 * Thrown at startup, while the bean is post-processed, so the application fails to start rather than
 * run without the retries it asked for. {@link ChatModelNotRetriableException} is the case of a chat
 * model.
 */
public class ModelNotRetriableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What kind of model the bean is, for messages. */
    private final String kind;

    /** The name of the model bean that cannot be retried. */
    private final String beanName;

    /**
     * Creates the exception.
     *
     * @param kind what the bean is, in words, such as {@code embedding model}
     * @param beanName the model bean's name
     * @param reason why it cannot be retried, as a sentence without its final full stop
     * @param cause what the inspection of the bean threw, or {@code null}
     * @throws NullPointerException if {@code kind} or {@code beanName} is {@code null}
     */
    public ModelNotRetriableException(String kind, String beanName, String reason, @Nullable Throwable cause) {
        super("Cannot retry the " + Objects.requireNonNull(kind, "kind must not be null") + " bean '"
                + Objects.requireNonNull(beanName, "beanName must not be null") + "': " + reason
                + ". To start without retrying it, set inference.retry.clients." + beanName
                + ".enabled=false (or inference.retry.spring-ai.enabled=false for every Spring AI model)", cause);
        this.kind = kind;
        this.beanName = beanName;
    }

    /**
     * Returns what the bean is, in words.
     *
     * @return such as {@code chat model} or {@code embedding model}
     */
    public String kind() {
        return this.kind;
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
