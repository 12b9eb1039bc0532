package dev.inference.retry.springai;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Spring AI model bean that the application asked to retry cannot be, and why: its provider client is
 * not one whose HTTP exchanges this module knows how to reach, a private member of Spring AI or of its
 * provider SDK that a rebuild reads is not there (another version), its class cannot be proxied, or it is
 * a model of Spring AI's own that no provider integration of this module retries.
 *
 * <p>The one exception for that refusal, whatever kind of model (chat, embedding) and whichever path
 * (a rebuild beneath the bean, or the proxy above it) refused. Thrown at startup, while the bean is
 * post-processed, so that the application fails to start rather than run without the retries it asked
 * for; {@code ModelNotRetriableFailureAnalyzer} turns it into the startup report. The message names the
 * bean, the reason and the properties that start the application without retrying the bean.
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
     * Creates the exception for a chat model bean.
     *
     * @param beanName the chat model bean's name
     * @param reason why it cannot be retried, as a sentence without its final full stop
     * @param cause what the inspection of the bean threw, or {@code null}
     * @return the exception, whose {@link #kind()} is {@code chat model}
     * @throws NullPointerException if {@code beanName} is {@code null}
     */
    public static ModelNotRetriableException chatModel(String beanName, String reason, @Nullable Throwable cause) {
        return new ModelNotRetriableException("chat model", beanName, reason, cause);
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
