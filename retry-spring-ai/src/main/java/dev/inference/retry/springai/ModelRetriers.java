package dev.inference.retry.springai;

import dev.inference.retry.Retrier;
import java.util.Optional;

/**
 * Says which Spring AI model beans are retried, and with what: the chat models, and the embedding models
 * a provider integration retries (such as {@code openAiEmbeddingModel}).
 *
 * <p>The auto-configuration of this module is active only when a bean of this type exists; the
 * application's retry settings ({@code inference.retry.*}) provide it. At startup, for each model
 * bean it can retry, the post-processor asks once for the bean's retrier and rebuilds the bean, with
 * the same class, on provider clients whose HTTP exchanges that retrier decides about:
 * <ul>
 * <li>the retrier's {@linkplain Retrier#name() name} is what its listeners report as the client, so
 * it should be the bean name;</li>
 * <li>its listeners hear {@link dev.inference.retry.Operation#INVOKE} attempts for the model's
 * {@code call} and {@link dev.inference.retry.Operation#STREAM} attempts for its {@code stream};</li>
 * <li>its policy, budget, cool-down store and shutdown signal apply to every exchange of the bean.</li>
 * </ul>
 * The retrier's policy must already be validated: an invalid one has no place here, and a bean the
 * application should not have retried gets an empty answer. Trap: a runtime refresh gives the same
 * retrier new settings ({@link Retrier#refresh}), so an integration reads them from the retrier when it
 * needs them (each exchange, each attempt) and never keeps a copy.
 */
@FunctionalInterface
public interface ModelRetriers {

    /**
     * Returns the retrier of a model bean.
     *
     * @param beanName the name of the model bean, such as {@code openAiChatModel} or
     *     {@code openAiEmbeddingModel}
     * @return the retrier that decides about every provider exchange of that bean, or empty to leave
     *     the bean exactly as it is, its client's own retries included
     */
    Optional<Retrier> retrierFor(String beanName);
}
