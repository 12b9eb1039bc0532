package dev.inference.retry.springai.anthropic;

import com.anthropic.backends.Backend;
import com.anthropic.client.AnthropicClient;
import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.AnthropicClientAsyncImpl;
import com.anthropic.client.AnthropicClientImpl;
import com.anthropic.core.ClientOptions;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.PhantomReachableClosingHttpClient;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.exchange.AbandonableCalls;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.exchange.StreamHandOff;
import dev.inference.retry.springai.internal.AnthropicInternals;
import dev.inference.retry.springai.internal.ForwardingProxy;
import dev.inference.retry.time.WaitScheduler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.Executor;
import okhttp3.OkHttpClient;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;

/**
 * Rebuilds a {@link AnthropicChatModel} (Spring AI 2.0.1) on SDK clients whose HTTP exchanges a
 * {@link Retrier} retries, keeping its class and everything else it was built with, and each SDK client
 * re-optioned on a {@link RetryingHttpClient}, its own retries off. Spring AI's OkHttp transport is made
 * again with OkHttp's silent retry off and timed attempts abandonable ({@link #oneRequestPerCall}). The asynchronous client is wrapped
 * by {@link CancellableAnthropicStreams}, so that cancelling a stream ends its exchange, and reads each
 * stream on the thread that read its first event ({@link StreamHandOff}).
 *
 * <p>Traps: what the model, the SDK's clients and Spring AI's transport keep private is read through
 * {@link AnthropicInternals}; a member not found (another version, or clients that are not the SDK's
 * own) fails startup with a {@link ModelNotRetriableException}. The transport made again shares its
 * dispatcher with Spring AI's, which the SDK closes once nothing holds the wrapper around it: the copy
 * holds it. A model whose clients retry by themselves is not rebuilt: a
 * {@link ModelClientRetriesException} names {@value AnthropicProvider#CLIENT_RETRIES_PROPERTY}.
 */
final class AnthropicChatModelRebuild {

    private AnthropicChatModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @param beanName its bean name
     * @return {@code true} if its clients are already retried
     */
    static boolean isRetried(AnthropicChatModel model, String beanName) {
        return CancellableAnthropicStreams.isWrapper(model.getAnthropicClientAsync());
    }

    /**
     * Returns the retries that the model's own SDK clients make per exchange: the larger of its
     * synchronous and asynchronous clients' {@code maxRetries} ({@value AnthropicProvider#CLIENT_RETRIES_PROPERTY} for a
     * model the auto-configuration built; {@code 0} for a model this class rebuilt).
     *
     * @param model the model, as Spring AI or the application built it
     * @param beanName its bean name, for the exception
     * @return the retries in effect, {@code 0} when each exchange is one attempt
     * @throws ModelNotRetriableException if the model or its clients do not have the expected shape
     */
    static int clientRetries(AnthropicChatModel model, String beanName) {
        if (isRetried(model, beanName)) {
            return 0;
        }
        return Clients.of(model, beanName).retries();
    }

    /**
     * Rebuilds a model on retried clients.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param waits the timer of the asynchronous client's waits
     * @return a new model of the same class
     * @throws ModelNotRetriableException if the model or its clients do not have the expected shape
     * @throws ModelClientRetriesException if the model's clients would retry each exchange themselves
     */
    static AnthropicChatModel rebuild(AnthropicChatModel model, String beanName, Retrier retrier, WaitScheduler waits) {
        ToolCallingManager toolCallingManager = AnthropicInternals.CHAT_TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = AnthropicInternals.CHAT_OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = AnthropicInternals.CHAT_OBSERVATION_CONVENTION.read(model,
                beanName);
        Clients clients = Clients.of(model, beanName);
        HttpClient original = AnthropicInternals.TRANSPORT.read(clients.options(), beanName);
        HttpClient transport = oneRequestPerCall(original, beanName);
        HttpClient asyncOriginal = AnthropicInternals.TRANSPORT.read(clients.asyncOptions(), beanName);
        HttpClient asyncTransport = oneRequestPerCall(asyncOriginal, beanName);
        if (clients.retries() > 0) {
            throw ModelClientRetriesException.chatModel(beanName, clients.retries(),
                    AnthropicProvider.CLIENT_RETRIES_PROPERTY, "");
        }

        StreamCalls calls = new StreamCalls();
        AnthropicClient retried = clients.client().withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(AnthropicHttp.HTTP, transport, retrier, waits,
                    clients.options().streamHandlerExecutor(), calls, transport != original))
            .maxRetries(0));
        Executor streamHandlers = clients.asyncOptions().streamHandlerExecutor();
        AnthropicClientAsync retriedAsync = clients.clientAsync().withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(AnthropicHttp.HTTP, asyncTransport, retrier, waits, streamHandlers,
                    calls, asyncTransport != asyncOriginal))
            .streamHandlerExecutor(StreamHandOff.streamHandlerExecutor(streamHandlers))
            .maxRetries(0));
        AnthropicChatModel rebuilt = buildWith(model, retried, CancellableAnthropicStreams.wrap(retriedAsync, calls),
                toolCallingManager, observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    /**
     * Returns a transport that sends each request once and can abandon it: Spring AI's OkHttp transport
     * made again on its OkHttp client with {@code retryOnConnectionFailure} off, which Spring AI 2.0.1
     * turns on, and which sends a request again when the connection it took from the pool fails (a
     * second, unseen attempt), and with {@link AbandonableCalls}. Everything else of that client (its
     * connection pool, dispatcher, interceptors, timeouts, proxy) and of the transport (its backend) is
     * shared as Spring AI built it. A transport of the application's own is used as it is, the same
     * object.
     *
     * @param transport the SDK client's transport: Spring AI's, in the wrapper the SDK closes it with
     * @param beanName the model's bean name, for the exception
     * @return the transport to send each attempt with
     * @throws ModelNotRetriableException if Spring AI's transport does not have the expected shape
     */
    static HttpClient oneRequestPerCall(HttpClient transport, String beanName) {
        HttpClient built = (transport instanceof PhantomReachableClosingHttpClient closing)
                ? AnthropicInternals.CLOSING_TARGET.read(closing, beanName) : transport;
        if (!(built instanceof SpringAiAnthropicHttpClient springAi)) {
            return transport;
        }
        OkHttpClient okHttp = AnthropicInternals.OK_HTTP.read(springAi, beanName);
        Backend backend = AnthropicInternals.BACKEND.read(springAi, beanName);
        boolean ownsDispatcher = AnthropicInternals.OWNS_DISPATCHER.read(springAi, beanName);
        HttpClient copy = AnthropicInternals.SPRING_AI_TRANSPORT.newInstance(beanName,
                okHttp.newBuilder().retryOnConnectionFailure(false).addInterceptor(AbandonableCalls.INSTANCE).build(),
                backend, ownsDispatcher);
        // Once its wrapper is unreachable, the SDK closes Spring AI's transport, and the dispatcher the copy shares.
        return ForwardingProxy.keepingReachable(HttpClient.class, copy, transport);
    }

    @SuppressWarnings("removal")
    private static AnthropicChatModel buildWith(AnthropicChatModel model, AnthropicClient client,
            AnthropicClientAsync clientAsync, ToolCallingManager toolCallingManager,
            ObservationRegistry observationRegistry) {
        // toolCallingManager(...) is deprecated for removal in 3.0, but a model built with one must keep it.
        return AnthropicChatModel.builder()
            .anthropicClient(client)
            .anthropicClientAsync(clientAsync)
            .options(model.getOptions())
            .toolCallingManager(toolCallingManager)
            .observationRegistry(observationRegistry)
            .build();
    }

    /** A model's two SDK clients and their options. */
    private record Clients(AnthropicClient client, AnthropicClientAsync clientAsync, ClientOptions options,
            ClientOptions asyncOptions) {

        static Clients of(AnthropicChatModel model, String beanName) {
            AnthropicClient client = model.getAnthropicClient();
            AnthropicClientAsync clientAsync = model.getAnthropicClientAsync();
            if (!(client instanceof AnthropicClientImpl) || !(clientAsync instanceof AnthropicClientAsyncImpl)) {
                throw ModelNotRetriableException.chatModel(beanName, "its Anthropic clients ("
                        + client.getClass().getName() + ", " + clientAsync.getClass().getName()
                        + ") are not the SDK's AnthropicClientImpl and AnthropicClientAsyncImpl, whose HTTP client "
                        + "can be decorated", null);
            }
            return new Clients(client, clientAsync, AnthropicInternals.CLIENT_OPTIONS.read(client, beanName),
                    AnthropicInternals.CLIENT_ASYNC_OPTIONS.read(clientAsync, beanName));
        }

        /** The retries the clients make per exchange themselves: the larger of the two. */
        int retries() {
            return Math.max(this.options.maxRetries(), this.asyncOptions.maxRetries());
        }
    }
}
