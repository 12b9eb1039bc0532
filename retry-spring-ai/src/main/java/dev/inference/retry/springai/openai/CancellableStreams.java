package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClientAsync;
import com.openai.core.RequestOptions;
import com.openai.core.http.AsyncStreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import dev.inference.client.CallContext;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.internal.ForwardingProxy;
import dev.inference.retry.springai.internal.OpenAiInternals;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * An asynchronous OpenAI client whose chat completion streams, once closed, end their exchange: a wait
 * before a retry ends at once, and no further request is made.
 *
 * <p>The SDK's own {@link AsyncStreamResponse#close()} does not reach the exchange (see
 * {@link StreamCalls}). The wrapper intercepts {@code chat().completions().createStreaming(params,
 * options)}, the call {@code OpenAiChatModel.stream} makes (and every other {@code createStreaming}
 * overload, which the SDK routes to it): it registers a cancellable context for the call, names it in
 * a request header for the {@link RetryingHttpClient} beneath, and returns the SDK's stream
 * response with a {@code close()} that cancels that context first. Every other method is the wrapped
 * client's. The wrappers are {@link ForwardingProxy forwarding proxies} of the SDK's interfaces, so that
 * methods the SDK adds later reach the wrapped client too.
 */
final class CancellableStreams {

    private CancellableStreams() {
    }

    /**
     * Wraps a client.
     *
     * @param client the client, whose HTTP client is a {@link RetryingHttpClient} sharing {@code calls}
     * @param calls the registry of stream call contexts
     * @return the wrapping client
     */
    static OpenAIClientAsync wrap(OpenAIClientAsync client, StreamCalls calls) {
        return ForwardingProxy.along(OpenAiInternals.CHAT_COMPLETION_STREAMS, client, "CancellableStreams",
                (completions, args) -> createStreaming((ChatCompletionServiceAsync) completions,
                        (ChatCompletionCreateParams) args[0], (RequestOptions) args[1], calls));
    }

    /**
     * Tells whether a client is a wrapper made by {@link #wrap}.
     *
     * @param client the client
     * @return {@code true} for a wrapper
     */
    static boolean isWrapper(Object client) {
        return ForwardingProxy.isProxy(client);
    }

    private static AsyncStreamResponse<ChatCompletionChunk> createStreaming(ChatCompletionServiceAsync completions,
            ChatCompletionCreateParams params, RequestOptions requestOptions, StreamCalls calls) {
        // The stream completes when it ends, fails or is closed: the exchange is over by then, or never begins.
        StreamCalls.Started<AsyncStreamResponse<ChatCompletionChunk>> started = calls.start((id) -> completions
            .createStreaming(params.toBuilder().putAdditionalHeader(StreamCalls.HEADER, id).build(), requestOptions),
                AsyncStreamResponse::onCompleteFuture);
        return new ClosingStream<>(started.call(), started.context());
    }

    /** The SDK's stream response, whose {@code close()} first cancels the call's context. */
    private static final class ClosingStream<T> implements AsyncStreamResponse<T> {

        private final AsyncStreamResponse<T> response;

        private final CallContext context;

        ClosingStream(AsyncStreamResponse<T> response, CallContext context) {
            this.response = response;
            this.context = context;
        }

        @Override
        public AsyncStreamResponse<T> subscribe(Handler<? super T> handler) {
            this.response.subscribe(handler);
            return this;
        }

        @Override
        public AsyncStreamResponse<T> subscribe(Handler<? super T> handler, Executor executor) {
            this.response.subscribe(handler, executor);
            return this;
        }

        @Override
        public CompletableFuture<Void> onCompleteFuture() {
            return this.response.onCompleteFuture();
        }

        @Override
        public void close() {
            this.context.cancel();
            this.response.close();
        }
    }
}
