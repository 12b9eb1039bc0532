package dev.inference.retry.springai.exchange;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.RateLimitHeaders;
import java.io.IOException;
import java.util.Optional;

/**
 * What differs from one provider SDK to the next in its exchanges, as {@link RetryingExchanges} needs
 * it: how the SDK throws each failure, how the provider opens and fails a stream, and which family of
 * rate-limit headers it sends. Each is built with
 * the SDK's own exception builders, from the same status, headers and body its error handler reads, so
 * that the caller gets exactly the exception the SDK itself would throw, with the typed failure that
 * classified it beneath (see {@link TypedFailures}). Implemented once per provider; implementations are
 * stateless and thread-safe.
 *
 * @param <R> the SDK's HTTP response interface
 */
public interface SdkFailures<R> {

    /**
     * Builds the exception the SDK throws for a response whose status is retryable (408, 429, 500 to
     * 599). Reads and consumes the body; the caller closes the response.
     *
     * @param response the response
     * @param typed its typed failure, attached as the cause
     * @return the SDK's exception
     */
    RuntimeException statusException(R response, HttpStatusException typed);

    /**
     * Returns what the transport threw as the retry decisions see it: the SDK's I/O exception, with a
     * {@link dev.inference.failure.NetworkException} in its cause chain (see
     * {@link TypedFailures#asNetworkFailure}); anything else as it is.
     *
     * @param thrown what the transport threw
     * @return the failure to decide about
     */
    RuntimeException transportException(RuntimeException thrown);

    /**
     * Returns the SDK's I/O exception for a successful response whose body broke before its attempt had
     * read it (a unary body whole, a stream up to its first event), with a
     * {@link dev.inference.failure.NetworkException} in its cause chain.
     *
     * @param message what failed, such as {@code "Stream failed"}
     * @param thrown what reading the body threw
     * @return the failure to decide about
     */
    RuntimeException ioException(String message, IOException thrown);

    /**
     * Tells whether a stream's event says nothing of the exchange's outcome and delivers no content,
     * so that the first event that does may still be read before anything is handed over.
     *
     * @param event the event
     * @return {@code true} to read past it; {@code false} to decide by it
     */
    boolean isPreamble(FirstSseEvent.Event event);

    /**
     * Classifies the first event of a successful stream: an error event there is the provider's in-band
     * failure, sent before any content.
     *
     * @param event the first event that is not preamble
     * @param response the response it came in, for the exception's status and headers
     * @return the exception the SDK throws for that event, caused by a retryable
     *     {@link HttpStatusException} when its error type is transient (see {@link TypedFailures#inBand})
     *     and with no typed cause when it is permanent; or empty when the event is not an error
     */
    Optional<RuntimeException> inBandException(FirstSseEvent.Event event, R response);

    /**
     * Returns the family of rate-limit headers the provider sends with every response, which
     * {@link RetryingExchanges} reads when its retrier {@linkplain dev.inference.retry.Retrier#readsRateLimits()
     * reads rate limits}.
     *
     * @return the provider's headers
     */
    RateLimitHeaders rateLimitHeaders();
}
