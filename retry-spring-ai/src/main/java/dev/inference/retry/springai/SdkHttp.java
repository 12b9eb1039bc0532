package dev.inference.retry.springai;

import dev.inference.failure.HttpStatusException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link RetryingExchanges} needs to know of one provider SDK's HTTP layer: how to read and change
 * its requests, how to read its responses, and how that SDK throws each failure. Implemented once per
 * SDK (the OpenAI and Anthropic Java SDKs are generated alike, but share no types). Implementations are
 * stateless and thread-safe.
 *
 * @param <Q> the SDK's HTTP request type
 * @param <R> the SDK's HTTP response interface
 */
interface SdkHttp<Q, R> {

    /**
     * Returns the SDK's response interface, which a response whose body was partly read implements.
     *
     * @return the interface
     */
    Class<R> responseType();

    /**
     * Returns the values of a request header.
     *
     * @param request the request
     * @param name the header's name, in any case
     * @return its values, empty when the request has none
     */
    List<String> requestHeader(Q request, String name);

    /**
     * Returns a copy of a request with a header replaced or removed.
     *
     * @param request the request, left unchanged
     * @param name the header's name
     * @param value its only value, or {@code null} to remove it
     * @return the copy
     */
    Q withRequestHeader(Q request, String name, @Nullable String value);

    /**
     * Tells whether a request's body can be sent again.
     *
     * @param request the request
     * @return {@code true} when it has no body or a repeatable one
     */
    boolean isRepeatable(Q request);

    /**
     * Returns a response's status code.
     *
     * @param response the response
     * @return the status
     */
    int status(R response);

    /**
     * Returns the values of a response header.
     *
     * @param response the response
     * @param name the header's name, in any case
     * @return its values, empty when the response has none
     */
    List<String> responseHeader(R response, String name);

    /**
     * Returns a response's body.
     *
     * @param response the response
     * @return its body, not yet read
     */
    InputStream body(R response);

    /**
     * Closes a response.
     *
     * @param response the response
     */
    void close(R response);

    /**
     * Builds the exception the SDK throws for a response whose status is retryable (408, 429, 500 to
     * 599), with the SDK's own builders from the same status, headers and error body. Reads and
     * consumes the body; the caller closes the response.
     *
     * @param response the response
     * @param typed its typed failure, attached as the cause
     * @return the SDK's exception
     */
    RuntimeException statusException(R response, HttpStatusException typed);

    /**
     * Returns what the transport threw as the retry decisions see it: the SDK's I/O exception, with a
     * {@link dev.inference.failure.NetworkException} in its cause chain (see
     * {@link SdkFailures#asNetworkFailure}); anything else as it is.
     *
     * @param thrown what the transport threw
     * @return the failure to decide about
     */
    RuntimeException transportException(RuntimeException thrown);

    /**
     * Returns the exception the SDK throws when reading a stream fails, with a
     * {@link dev.inference.failure.NetworkException} in its cause chain.
     *
     * @param thrown what reading the stream threw
     * @return the failure to decide about
     */
    RuntimeException streamException(IOException thrown);

    /**
     * Tells whether a stream's event says nothing of the exchange's outcome and delivers no content,
     * so that the first event that does may still be read before anything is handed over.
     *
     * @param event the event
     * @return {@code true} to read past it; {@code false} (the default) to decide by it
     */
    default boolean isPreamble(FirstSseEvent.Event event) {
        return false;
    }

    /**
     * Classifies the first event of a successful stream: an error event there is the provider's in-band
     * failure, sent before any content.
     *
     * @param event the first event that is not preamble
     * @param response the response it came in, for the exception's status and headers
     * @return the exception the SDK throws for that event, caused by a retryable
     *     {@link HttpStatusException} when its error type is transient (see
     *     {@link SdkFailures#inBandFailure}) and with no typed cause when it is permanent; or empty when
     *     the event is not an error
     */
    Optional<RuntimeException> inBandException(FirstSseEvent.Event event, R response);
}
