package dev.inference.retry.springai;

import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.errors.AnthropicIoException;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Retrier;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The Anthropic SDK's HTTP client, with each exchange retried with the decisions of a {@link Retrier},
 * as {@link RetryingExchanges} describes: the layer beneath the SDK's own retries (which must be off),
 * its logging and its error handling.
 *
 * <p>For the Anthropic SDK (2.52.0): a failure is built as its {@code RateLimitException},
 * {@code InternalServerException}, {@code UnexpectedStatusCodeException} or {@code SseException} (see
 * {@link AnthropicFailures}), or is the transport's {@link AnthropicIoException}. A stream's
 * {@code message_start} and {@code ping} events are read past: the first other event decides, and an
 * {@code error} event there, before any content, is the provider's failure. As the SDK's layers above
 * pass an exception from the HTTP client through unchanged, {@code ChatModel.call} throws an
 * {@link ExhaustedException} itself, and a stream signals it as its error. Thread-safe.
 */
final class RetryingAnthropicHttpClient {

    private RetryingAnthropicHttpClient() {
    }

    /**
     * Makes the client.
     *
     * @param delegate the transport: the client the SDK would use, making one request per call
     * @param retrier the decisions
     * @param timer the timer of the waits of {@code executeAsync}
     * @param streamReader where {@code executeAsync} reads a stream's first events, which blocks until
     *     they arrive; such as the SDK's stream handler executor
     * @param streamCalls the contexts of stream calls that a client wrapper cancels
     * @return the retrying client (see {@link RetryingHttpClient}); closing it closes the transport
     */
    static HttpClient create(HttpClient delegate, Retrier retrier, RetryTimer timer, Executor streamReader,
            StreamCalls streamCalls) {
        return RetryingHttpClient.of(HttpClient.class, delegate,
                new RetryingExchanges<>(new AnthropicSdk(), retrier, timer, streamReader, streamCalls));
    }

    /** The Anthropic SDK's HTTP types, and its failures as {@link AnthropicFailures} builds them. */
    private static final class AnthropicSdk implements SdkHttp<HttpRequest, HttpResponse> {

        @Override
        public Class<HttpResponse> responseType() {
            return HttpResponse.class;
        }

        @Override
        public List<String> requestHeader(HttpRequest request, String name) {
            return request.headers().values(name);
        }

        @Override
        public HttpRequest withRequestHeader(HttpRequest request, String name, @Nullable String value) {
            HttpRequest.Builder copy = request.toBuilder().removeHeaders(name);
            return ((value != null) ? copy.putHeader(name, value) : copy).build();
        }

        @Override
        public boolean isRepeatable(HttpRequest request) {
            HttpRequestBody body = request.body();
            return body == null || body.repeatable();
        }

        @Override
        public int status(HttpResponse response) {
            return response.statusCode();
        }

        @Override
        public List<String> responseHeader(HttpResponse response, String name) {
            return response.headers().values(name);
        }

        @Override
        public InputStream body(HttpResponse response) {
            return response.body();
        }

        @Override
        public void close(HttpResponse response) {
            response.close();
        }

        @Override
        public RuntimeException statusException(HttpResponse response, HttpStatusException typed) {
            return AnthropicFailures.retryableStatusException(response, typed);
        }

        @Override
        public RuntimeException transportException(RuntimeException thrown) {
            return (thrown instanceof AnthropicIoException io) ? AnthropicFailures.networkFailure(io) : thrown;
        }

        @Override
        public RuntimeException streamException(IOException thrown) {
            return AnthropicFailures.networkFailure(new AnthropicIoException("Stream failed", thrown));
        }

        @Override
        public boolean isPreamble(FirstSseEvent.Event event) {
            return AnthropicFailures.isPreamble(event);
        }

        @Override
        public Optional<RuntimeException> inBandException(FirstSseEvent.Event event, HttpResponse response) {
            return AnthropicFailures.inBandFailure(event, response.statusCode(), response.headers())
                .map(RuntimeException.class::cast);
        }
    }
}
