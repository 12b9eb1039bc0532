package dev.inference.client;

/**
 * A client of an LLM inference provider.
 *
 * <p>Implementations are transports (an HTTP client for an OpenAI-compatible endpoint, say) or
 * decorators around another client (such as {@code dev.inference.retry.RetryClient}). Every
 * failure is reported as an unchecked exception; transports should use the typed failures of
 * {@code dev.inference.failure} so that decorators can tell transient failures from permanent ones.
 * Implementations must be safe for concurrent use.
 */
public interface InferenceClient {

    /**
     * Performs one unary inference call.
     *
     * @param request the request; never modified
     * @param context the caller's cancellation, deadline and credentials for this call
     * @return the provider's response, never {@code null}
     * @throws RuntimeException the call's failure, preferably one of the typed failures of
     *     {@code dev.inference.failure}, {@link java.util.concurrent.CancellationException} when the
     *     context was cancelled, or {@code DeadlineExceededException} when its deadline passed
     */
    InferenceResponse invoke(InferenceRequest request, CallContext context);

    /**
     * Opens a streamed inference call. The call is <em>established</em> once this method returns a
     * reader; failures after that surface from the reader.
     *
     * @param request the request; never modified
     * @param context the caller's cancellation, deadline and credentials for this call
     * @return an open reader, never {@code null}; the caller must close it
     * @throws HalfOpenStreamException when establishment failed after a reader had been created; the
     *     exception carries that reader so that the caller can close it
     * @throws RuntimeException any other establishment failure, as for {@link #invoke}
     */
    StreamReader stream(InferenceRequest request, CallContext context);

    /**
     * Performs one unary inference call that can neither be cancelled nor time out and carries no
     * credentials: the same as {@code invoke(request, CallContext.background())}.
     *
     * @param request the request; never modified
     * @return the provider's response, never {@code null}
     * @throws RuntimeException the call's failure, as for {@link #invoke(InferenceRequest, CallContext)}
     */
    default InferenceResponse invoke(InferenceRequest request) {
        return invoke(request, CallContext.background());
    }

    /**
     * Opens a streamed inference call that can neither be cancelled nor time out and carries no
     * credentials: the same as {@code stream(request, CallContext.background())}.
     *
     * @param request the request; never modified
     * @return an open reader, never {@code null}; the caller must close it
     * @throws RuntimeException the establishment failure, as for
     *     {@link #stream(InferenceRequest, CallContext)}
     */
    default StreamReader stream(InferenceRequest request) {
        return stream(request, CallContext.background());
    }
}
