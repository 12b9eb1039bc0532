package dev.inference.retry.springai;

import java.util.Optional;

/**
 * Tells the retry what an exception thrown by a chat model's client means, by turning it into the
 * core's typed failure ({@link dev.inference.failure.HttpStatusException}, with the provider's status
 * and {@code Retry-After}; {@link dev.inference.failure.NetworkException};
 * {@link dev.inference.failure.QuotaExceededException}), which {@link dev.inference.retry.Classification}
 * then classifies as any other.
 *
 * <p>Used for the chat models retried above their HTTP exchange, by a proxy of the bean's class. For the
 * exception a call threw, and then each exception of its cause chain, the proxy asks the application's
 * translator beans in their order, then the built-in ones (Spring's {@code RestClient} and
 * {@code WebClient}, the OpenAI, Anthropic and Google GenAI SDKs, {@code spring-ai-retry}, each when its
 * library is present); the first answer decides. A chain that already holds what the core classifies
 * itself (a cancellation, a deadline, a shutdown, an {@link dev.inference.retry.ExhaustedException}, a
 * typed failure) is not translated, and an exception no translator knows is permanent.
 *
 * <p>The typed failure only decides and is reported to listeners: the caller gets the client's exception
 * as it was thrown (as the cause of an exhaustion). Implementations must be thread-safe, quick and
 * non-blocking; one that throws is logged and taken not to know the failure.
 */
@FunctionalInterface
public interface ChatModelFailureTranslator {

    /**
     * Translates an exception of a chat model's client.
     *
     * @param failure what a call threw, or one of its causes
     * @return the typed failure that describes {@code failure}, with {@code failure} as its cause (so that
     *     a cancellation in the chain still ends the call, and so that listeners can reach the original):
     *     an {@link dev.inference.failure.HttpStatusException} with the provider's status, retried or not
     *     as the status says, a {@link dev.inference.failure.NetworkException}, always retried, or a
     *     {@link dev.inference.failure.QuotaExceededException}, never retried; or empty when this
     *     translator does not know {@code failure}, to let the next one decide
     */
    Optional<RuntimeException> translate(Throwable failure);
}
