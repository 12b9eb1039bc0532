package dev.inference.retry.springai;

import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIIoException;
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
 * The OpenAI SDK's HTTP client, with each exchange retried with the decisions of a {@link Retrier}, as
 * {@link RetryingExchanges} describes: the layer beneath the SDK's own retries (which must be off), its
 * logging and its error handling.
 *
 * <p>For the OpenAI SDK (4.49.0): a failure is built as its {@code RateLimitException},
 * {@code InternalServerException}, {@code UnexpectedStatusCodeException} or {@code SseException} (see
 * {@link OpenAiFailures}), or is the transport's {@link OpenAIIoException}. The first event of a stream
 * decides: an {@code error} object there, before any content, is the provider's failure. As the SDK's
 * layers above pass an exception from the HTTP client through unchanged, {@code ChatModel.call} throws
 * an {@link ExhaustedException} itself, and a stream signals it in a
 * {@link java.util.concurrent.CompletionException}, as the SDK signals its own failures. Thread-safe.
 */
final class RetryingOpenAiHttpClient {

    private RetryingOpenAiHttpClient() {
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
                new RetryingExchanges<>(new OpenAiSdk(), retrier, timer, streamReader, streamCalls));
    }

    /** The OpenAI SDK's HTTP types, and its failures as {@link OpenAiFailures} builds them. */
    private static final class OpenAiSdk implements SdkHttp<HttpRequest, HttpResponse> {

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
            return OpenAiFailures.retryableStatusException(response, typed);
        }

        @Override
        public RuntimeException transportException(RuntimeException thrown) {
            return (thrown instanceof OpenAIIoException io) ? OpenAiFailures.networkFailure(io) : thrown;
        }

        @Override
        public RuntimeException streamException(IOException thrown) {
            return OpenAiFailures.networkFailure(new OpenAIIoException("Stream failed", thrown));
        }

        @Override
        public boolean isPreamble(FirstSseEvent.Event event) {
            return OpenAiFailures.isPreamble(event);
        }

        @Override
        public Optional<RuntimeException> inBandException(FirstSseEvent.Event event, HttpResponse response) {
            return OpenAiFailures.inBandFailure(event.data(), response).map(RuntimeException.class::cast);
        }
    }
}
