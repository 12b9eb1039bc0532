package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.PhantomReachableClosingHttpClient;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ChatModelClientRetriesException;
import dev.inference.retry.springai.ChatModelNotRetriableException;
import dev.inference.retry.springai.exchange.ForwardingProxy;
import dev.inference.retry.springai.exchange.RetryTimer;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.exchange.StreamHandOff;
import dev.inference.retry.springai.support.PrivateConstructor;
import dev.inference.retry.springai.support.PrivateField;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.Executor;
import okhttp3.OkHttpClient;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * Rebuilds a {@link OpenAiChatModel} (Spring AI 2.0.1) on SDK clients whose HTTP exchanges a
 * {@link Retrier} retries, keeping its class and everything else it was built with: the same options,
 * tool calling manager, observation registry and convention, and each SDK client re-optioned with its
 * transport decorated by a {@link RetryingHttpClient} and its own retries off ({@code maxRetries(0)}).
 * Spring AI's OkHttp transport is made again with OkHttp's own retry of a failed connection off, so that
 * each attempt is one request (see {@link #oneRequestPerCall}). The asynchronous client is also wrapped
 * by {@link CancellableStreams}, so that closing a stream ends its exchange, and reads each stream on the
 * thread that read its first event ({@link StreamHandOff}).
 *
 * <p>Traps: the model, the SDK's clients and Spring AI's transport expose none of this, so it is read
 * (and the transport made) by reflection; this is the one class that knows the private shape of
 * {@code OpenAiChatModel} and {@code SpringAiOpenAiHttpClient} 2.0.1 and of the OpenAI Java SDK 4.49.0.
 * A field not found (another version, or clients that are not the SDK's own) fails startup with a
 * {@link ChatModelNotRetriableException}. The transport made again shares its dispatcher with Spring
 * AI's, which the SDK closes once nothing holds the wrapper it put around it: the copy holds it. A model
 * whose clients would retry each exchange themselves is not rebuilt: a
 * {@link ChatModelClientRetriesException} names {@value OpenAiProvider#CLIENT_RETRIES_PROPERTY}, which
 * the starter sets to {@code 0} when unset.
 */
final class OpenAiChatModelRebuild {

    private static final String SUPPORTED = "Spring AI 2.0.1 with the OpenAI Java SDK 4.49.0";

    private static final PrivateField CLIENT = new PrivateField(OpenAiChatModel.class, "openAiClient", SUPPORTED);

    private static final PrivateField CLIENT_ASYNC = new PrivateField(OpenAiChatModel.class, "openAiClientAsync",
            SUPPORTED);

    private static final PrivateField TOOL_CALLING_MANAGER = new PrivateField(OpenAiChatModel.class,
            "toolCallingManager", SUPPORTED);

    private static final PrivateField OBSERVATION_REGISTRY = new PrivateField(OpenAiChatModel.class,
            "observationRegistry", SUPPORTED);

    private static final PrivateField OBSERVATION_CONVENTION = new PrivateField(OpenAiChatModel.class,
            "observationConvention", SUPPORTED);

    private static final PrivateField OPTIONS = new PrivateField(OpenAIClientImpl.class, "clientOptions", SUPPORTED);

    private static final PrivateField ASYNC_OPTIONS = new PrivateField(OpenAIClientAsyncImpl.class, "clientOptions",
            SUPPORTED);

    private static final PrivateField TRANSPORT = new PrivateField(ClientOptions.class, "originalHttpClient",
            SUPPORTED);

    private static final PrivateField CLOSING_TARGET = new PrivateField(PhantomReachableClosingHttpClient.class,
            "httpClient", SUPPORTED);

    private static final PrivateField OWNS_DISPATCHER = new PrivateField(SpringAiOpenAiHttpClient.class,
            "ownsDispatcherExecutor", SUPPORTED);

    private static final PrivateConstructor SPRING_AI_TRANSPORT = new PrivateConstructor(SpringAiOpenAiHttpClient.class,
            SUPPORTED, OkHttpClient.class, boolean.class);

    /** Every private field this class reads. */
    static final List<PrivateField> FIELDS = List.of(CLIENT, CLIENT_ASYNC, TOOL_CALLING_MANAGER, OBSERVATION_REGISTRY,
            OBSERVATION_CONVENTION, OPTIONS, ASYNC_OPTIONS, TRANSPORT, CLOSING_TARGET, OWNS_DISPATCHER);

    /** Every private constructor this class calls. */
    static final List<PrivateConstructor> CONSTRUCTORS = List.of(SPRING_AI_TRANSPORT);

    private OpenAiChatModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @param beanName its bean name, for the exception
     * @return {@code true} if its clients are already retried
     */
    static boolean isRetried(OpenAiChatModel model, String beanName) {
        return CancellableStreams.isWrapper(CLIENT_ASYNC.read(model, beanName));
    }

    /**
     * Returns the retries that the model's own SDK clients make per exchange: the larger of its
     * synchronous and asynchronous clients' {@code maxRetries}.
     *
     * @param model the model, as Spring AI or the application built it
     * @param beanName its bean name, for the exception
     * @return the retries in effect, {@code 0} when each exchange is one attempt
     * @throws ChatModelNotRetriableException if the model or its clients do not have the expected shape
     */
    static int clientRetries(OpenAiChatModel model, String beanName) {
        OpenAIClient client = CLIENT.read(model, beanName);
        OpenAIClientAsync clientAsync = CLIENT_ASYNC.read(model, beanName);
        requireSdkClients(client, clientAsync, beanName);
        ClientOptions options = OPTIONS.read(client, beanName);
        ClientOptions asyncOptions = ASYNC_OPTIONS.read(clientAsync, beanName);
        return Math.max(options.maxRetries(), asyncOptions.maxRetries());
    }

    /**
     * Rebuilds a model on retried clients.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param timer the timer of the asynchronous client's waits
     * @return a new model of the same class
     * @throws ChatModelNotRetriableException if the model or its clients do not have the expected shape
     * @throws ChatModelClientRetriesException if the model's clients would retry each exchange themselves
     */
    static OpenAiChatModel rebuild(OpenAiChatModel model, String beanName, Retrier retrier, RetryTimer timer) {
        OpenAIClient client = CLIENT.read(model, beanName);
        OpenAIClientAsync clientAsync = CLIENT_ASYNC.read(model, beanName);
        ToolCallingManager toolCallingManager = TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = OBSERVATION_CONVENTION.read(model, beanName);
        requireSdkClients(client, clientAsync, beanName);
        ClientOptions options = OPTIONS.read(client, beanName);
        ClientOptions asyncOptions = ASYNC_OPTIONS.read(clientAsync, beanName);
        HttpClient transport = oneRequestPerCall(TRANSPORT.read(options, beanName), beanName);
        HttpClient asyncTransport = oneRequestPerCall(TRANSPORT.read(asyncOptions, beanName), beanName);
        int clientRetries = Math.max(options.maxRetries(), asyncOptions.maxRetries());
        if (clientRetries > 0) {
            throw new ChatModelClientRetriesException(beanName, clientRetries, OpenAiProvider.CLIENT_RETRIES_PROPERTY,
                    "(Spring AI reads " + OpenAiProvider.CLIENT_RETRIES_PROPERTY
                            + "=3, its default, as unset, and then takes "
                            + "spring.ai.openai.max-retries.) ");
        }

        StreamCalls calls = new StreamCalls();
        OpenAIClient retried = client.withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(OpenAiFailures.HTTP, transport, retrier, timer, options.streamHandlerExecutor(),
                    calls))
            .maxRetries(0));
        Executor streamHandlers = asyncOptions.streamHandlerExecutor();
        OpenAIClientAsync retriedAsync = CancellableStreams.wrap(clientAsync.withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(OpenAiFailures.HTTP, asyncTransport, retrier, timer, streamHandlers,
                    calls))
            .streamHandlerExecutor(StreamHandOff.streamHandlerExecutor(streamHandlers))
            .maxRetries(0)), calls);
        OpenAiChatModel rebuilt = buildWith(model, retried, retriedAsync, toolCallingManager, observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    /**
     * Returns a transport that sends each request once: Spring AI's OkHttp transport made again on its
     * OkHttp client with {@code retryOnConnectionFailure} off, which Spring AI 2.0.1 turns on, and which
     * sends a request again when the connection it took from the pool fails: a second, unseen attempt.
     * Everything else of that client (its connection pool, dispatcher, interceptors, timeouts, proxy) is
     * shared as Spring AI built it. A transport of the application's own is used as it is.
     *
     * @param transport the SDK client's transport: Spring AI's, in the wrapper the SDK closes it with
     * @param beanName the model's bean name, for the exception
     * @return the transport to send each attempt with
     * @throws ChatModelNotRetriableException if Spring AI's transport does not have the expected shape
     */
    static HttpClient oneRequestPerCall(HttpClient transport, String beanName) {
        HttpClient built = (transport instanceof PhantomReachableClosingHttpClient closing)
                ? CLOSING_TARGET.read(closing, beanName) : transport;
        if (!(built instanceof SpringAiOpenAiHttpClient springAi)
                || !springAi.getOkHttpClient().retryOnConnectionFailure()) {
            return transport;
        }
        OkHttpClient once = springAi.getOkHttpClient().newBuilder().retryOnConnectionFailure(false).build();
        boolean ownsDispatcher = OWNS_DISPATCHER.read(springAi, beanName);
        HttpClient copy = SPRING_AI_TRANSPORT.newInstance(beanName, once, ownsDispatcher);
        // Once its wrapper is unreachable, the SDK closes Spring AI's transport, and the dispatcher the copy shares.
        return ForwardingProxy.keepingReachable(HttpClient.class, copy, transport);
    }

    private static void requireSdkClients(OpenAIClient client, OpenAIClientAsync clientAsync, String beanName) {
        if (!(client instanceof OpenAIClientImpl) || !(clientAsync instanceof OpenAIClientAsyncImpl)) {
            throw new ChatModelNotRetriableException(beanName, "its OpenAI clients (" + client.getClass().getName()
                    + ", " + clientAsync.getClass().getName() + ") are not the SDK's OpenAIClientImpl and "
                    + "OpenAIClientAsyncImpl, whose HTTP client can be decorated", null);
        }
    }

    @SuppressWarnings("removal")
    private static OpenAiChatModel buildWith(OpenAiChatModel model, OpenAIClient client, OpenAIClientAsync clientAsync,
            ToolCallingManager toolCallingManager, ObservationRegistry observationRegistry) {
        // toolCallingManager(...) is deprecated for removal in 3.0, but a model built with one must keep it.
        return OpenAiChatModel.builder()
            .openAiClient(client)
            .openAiClientAsync(clientAsync)
            .options(model.getOptions())
            .toolCallingManager(toolCallingManager)
            .observationRegistry(observationRegistry)
            .build();
    }
}
