package dev.inference.retry.springai.anthropic;

import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.services.async.MessageServiceAsync;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.internal.AnthropicInternals;
import dev.inference.retry.springai.internal.ForwardingProxy;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous Anthropic client whose message streams, once their future is cancelled, end their
 * exchange: a wait before a retry ends at once, and no further request is made.
 *
 * <p>The future the SDK returns for a stream is a stage derived from its exchange's future, so
 * cancelling it (as Reactor does when a subscription is disposed before the stream began) never reaches
 * the exchange (see {@link StreamCalls}). The wrapper intercepts
 * {@code messages().withRawResponse().createStreaming(params, options)}, the call
 * {@code AnthropicChatModel.stream} makes: it registers a cancellable context for the call, names it in
 * a request header for the {@link RetryingHttpClient} beneath, and returns a future of the
 * SDK's raw stream response whose cancellation cancels that context. A response that arrives after the
 * cancellation is closed. Every other method is the wrapped client's; the wrappers are
 * {@link ForwardingProxy forwarding proxies} of the SDK's interfaces, and the views that
 * {@code withOptions} returns are wrapped too. Other ways to a stream that application code may take
 * on the model's client (such as the non-raw {@code createStreaming}, returning an
 * {@code AsyncStreamResponse}) are retried alike, but closing them does not end a wait of their exchange.
 */
final class CancellableAnthropicStreams {

    private static final String NAME = "CancellableAnthropicStreams";

    private CancellableAnthropicStreams() {
    }

    /**
     * Wraps a client.
     *
     * @param client the client, whose HTTP client is a {@link RetryingHttpClient} sharing {@code calls}
     * @param calls the registry of stream call contexts
     * @return the wrapping client
     */
    static AnthropicClientAsync wrap(AnthropicClientAsync client, StreamCalls calls) {
        return ForwardingProxy.along(AnthropicInternals.MESSAGE_STREAMS, client, NAME,
                (raw, args) -> createStreaming((MessageServiceAsync.WithRawResponse) raw, (MessageCreateParams) args[0],
                        (RequestOptions) args[1], calls));
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

    // The stream response is the caller's to close, as the SDK's own; one that arrives after a cancellation
    // is closed here.
    // The whenComplete callbacks are registered for their effect and throw nothing: their futures are not needed.
    @SuppressWarnings({ "MustBeClosedChecker", "FutureReturnValueIgnored" })
    private static CompletableFuture<HttpResponseFor<StreamResponse<RawMessageStreamEvent>>> createStreaming(
            MessageServiceAsync.WithRawResponse raw, MessageCreateParams params, RequestOptions requestOptions,
            StreamCalls calls) {
        // The SDK's future completes once the exchange is over, or never began.
        StreamCalls.Started<CompletableFuture<HttpResponseFor<StreamResponse<RawMessageStreamEvent>>>> started = calls
            .start((id) -> raw.createStreaming(params.toBuilder().putAdditionalHeader(StreamCalls.HEADER, id).build(),
                    requestOptions), (future) -> future);
        CompletableFuture<HttpResponseFor<StreamResponse<RawMessageStreamEvent>>> result = new CompletableFuture<>();
        started.call().whenComplete((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            }
            else if (!result.complete(response)) {
                // The caller cancelled meanwhile: nobody will read this stream.
                response.close();
            }
        });
        result.whenComplete((unused, failure) -> {
            if (result.isCancelled()) {
                started.context().cancel();
            }
        });
        return result;
    }
}
