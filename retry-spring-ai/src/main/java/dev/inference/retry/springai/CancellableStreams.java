package dev.inference.retry.springai;

import com.openai.client.OpenAIClientAsync;
import com.openai.core.RequestOptions;
import com.openai.core.http.AsyncStreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.services.async.ChatServiceAsync;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import dev.inference.client.CallContext;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * An asynchronous OpenAI client whose chat completion streams, once closed, end their exchange: a wait
 * before a retry ends at once, and no further request is made.
 *
 * <p>The SDK's own {@link AsyncStreamResponse#close()} does not reach the exchange (see
 * {@link StreamCalls}). The wrapper intercepts {@code chat().completions().createStreaming(params,
 * options)}, the call {@code OpenAiChatModel.stream} makes (and every other {@code createStreaming}
 * overload, which the SDK routes to it): it registers a cancellable context for the call, names it in
 * a request header for the {@link RetryingOpenAiHttpClient} beneath, and returns the SDK's stream
 * response with a {@code close()} that cancels that context first. Every other method is the wrapped
 * client's. The wrappers are JDK proxies of the SDK's interfaces, so that methods the SDK adds later
 * reach the wrapped client too.
 */
final class CancellableStreams {

    private CancellableStreams() {
    }

    /**
     * Wraps a client.
     *
     * @param client the client, whose HTTP client is a {@link RetryingOpenAiHttpClient} sharing {@code calls}
     * @param calls the registry of stream call contexts
     * @return the wrapping client
     */
    static OpenAIClientAsync wrap(OpenAIClientAsync client, StreamCalls calls) {
        return proxy(OpenAIClientAsync.class, client, (method, args) -> switch (method.getName()) {
            case "chat" -> Optional.of(chat((ChatServiceAsync) invoke(client, method, args), calls));
            case "withOptions" -> Optional.of(wrap((OpenAIClientAsync) invoke(client, method, args), calls));
            default -> Optional.empty();
        });
    }

    /**
     * Tells whether a client is a wrapper made by {@link #wrap}.
     *
     * @param client the client
     * @return {@code true} for a wrapper
     */
    static boolean isWrapper(Object client) {
        return Proxy.isProxyClass(client.getClass()) && Proxy.getInvocationHandler(client) instanceof Forwarding;
    }

    private static ChatServiceAsync chat(ChatServiceAsync chat, StreamCalls calls) {
        return proxy(ChatServiceAsync.class, chat, (method, args) -> switch (method.getName()) {
            case "completions" -> Optional.of(completions((ChatCompletionServiceAsync) invoke(chat, method, args), calls));
            case "withOptions" -> Optional.of(chat((ChatServiceAsync) invoke(chat, method, args), calls));
            default -> Optional.empty();
        });
    }

    private static ChatCompletionServiceAsync completions(ChatCompletionServiceAsync completions, StreamCalls calls) {
        return proxy(ChatCompletionServiceAsync.class, completions, (method, args) -> {
            if (method.getName().equals("withOptions")) {
                return Optional.of(completions((ChatCompletionServiceAsync) invoke(completions, method, args), calls));
            }
            if (method.getName().equals("createStreaming") && !method.isDefault()
                    && method.getParameterTypes()[0] == ChatCompletionCreateParams.class) {
                return Optional.of(createStreaming(completions, (ChatCompletionCreateParams) args[0],
                        (RequestOptions) args[1], calls));
            }
            return Optional.empty();
        });
    }

    private static AsyncStreamResponse<ChatCompletionChunk> createStreaming(ChatCompletionServiceAsync completions,
            ChatCompletionCreateParams params, RequestOptions requestOptions, StreamCalls calls) {
        CallContext context = CallContext.cancellable();
        String id = calls.register(context);
        AsyncStreamResponse<ChatCompletionChunk> response;
        try {
            response = completions.createStreaming(params.toBuilder().putAdditionalHeader(StreamCalls.HEADER, id).build(),
                    requestOptions);
        }
        catch (RuntimeException | Error ex) {
            calls.forget(id);
            throw ex;
        }
        // Completes when the stream ends, fails or is closed: the exchange is over by then, or never begins.
        response.onCompleteFuture().whenComplete((unused, failure) -> calls.forget(id));
        return new ClosingStream<>(response, context);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, Interception interception) {
        return (T) Proxy.newProxyInstance(CancellableStreams.class.getClassLoader(), new Class<?>[] { type },
                new Forwarding(target, interception));
    }

    private static Object invoke(Object target, Method method, @Nullable Object[] args) {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            Throwable thrown = ex.getCause();
            if (thrown instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (thrown instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("The OpenAI client threw a checked exception", thrown);
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException("Cannot call " + method + " of the OpenAI client", ex);
        }
    }

    /** Decides whether a proxy handles a method itself: a result, or empty to forward the call. */
    @FunctionalInterface
    private interface Interception {

        Optional<Object> intercept(Method method, @Nullable Object[] args);
    }

    /**
     * Forwards every call to the target, except those the interception takes; a default method runs on
     * the proxy, so that what it calls is intercepted too.
     */
    private static final class Forwarding implements InvocationHandler {

        private final Object target;

        private final Interception interception;

        Forwarding(Object target, Interception interception) {
            this.target = target;
            this.interception = interception;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "toString" -> "CancellableStreams[" + this.target + "]";
                    default -> CancellableStreams.invoke(this.target, method, args);
                };
            }
            Optional<Object> intercepted = this.interception.intercept(method, args);
            if (intercepted.isPresent()) {
                return intercepted.get();
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            return CancellableStreams.invoke(this.target, method, args);
        }
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
