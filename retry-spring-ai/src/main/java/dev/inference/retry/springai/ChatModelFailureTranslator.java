package dev.inference.retry.springai;

import java.util.Optional;

/**
 * Tells the retry what an exception thrown by a chat model's client means, by turning it into the
 * core's typed failure: an {@link dev.inference.failure.HttpStatusException} (the provider answered
 * with an error status, with the {@code Retry-After} it asked for, if any) or a
 * {@link dev.inference.failure.NetworkException} (the exchange failed before a complete answer), or a
 * {@link dev.inference.failure.QuotaExceededException} (the account's quota is used up: final). The
 * retry then classifies the typed failure as it classifies any other (see
 * {@link dev.inference.retry.Classification}): 408, 429, 500 to 599 and network failures are retried,
 * everything else is permanent.
 *
 * <p>Used for the chat model beans that are retried above their HTTP exchange, by a proxy of the bean's
 * class: an application's own {@code ChatModel}, or a Spring AI model that this module cannot retry
 * beneath the bean. The proxy asks, for the exception a call or a stream threw, and then for each
 * exception of its cause chain in turn, the application's translator beans in their order
 * ({@link org.springframework.core.Ordered}, {@link org.springframework.core.annotation.Order}) and then
 * the built-in ones, which know the exceptions of Spring's {@code RestClient} and {@code WebClient}, of
 * the OpenAI, Anthropic and Google GenAI Java SDKs and of Spring AI's {@code spring-ai-retry}, each only
 * when its library is on the class path. The first answer decides. A failure whose cause chain holds a cancellation,
 * an interrupt, a passed deadline, a shutdown, an {@link dev.inference.retry.ExhaustedException} (a model
 * retried beneath, called by this one) or a typed failure is not translated: the core classifies it
 * itself. An exception no translator knows is permanent: nothing is retried blindly.
 *
 * <p>The typed failure only decides and is reported to the retry's listeners (so the meters tag the
 * attempt {@code http_429} or {@code network}); the caller never gets it in place of the client's
 * exception (only as the suppressed exception of a cancellation or a shutdown that ended a wait). A
 * permanent failure reaches the caller exactly as the client threw it, and an exhausted call's
 * {@link dev.inference.retry.ExhaustedException} has that exception as its cause.
 *
 * <p>Implementations must be thread-safe and quick, and must not block. One that throws is logged and
 * taken not to know the failure.
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
