package dev.inference.retry.springai.internal;

import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.PhantomReachableClosingHttpClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.services.async.ChatServiceAsync;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import java.util.List;
import okhttp3.OkHttpClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * The private members of Spring AI's OpenAI models, of its OkHttp transport and of the OpenAI Java SDK
 * that the rebuilds in {@code dev.inference.retry.springai.openai} read, each beside the version it was
 * read from and the reason no public way exists. Spring AI's public seam for the transport,
 * {@code OpenAiHttpClientBuilderCustomizer}, serves every OpenAI model, wrapped or not, and its builder
 * has no setting for OkHttp's silent retry of a failed connection: hence the transport's three members.
 *
 * <p>For another version whose members differ, declare its members here beside these and choose by
 * {@link PrivateField#isPresent()}; a member not found fails startup with a
 * {@link dev.inference.retry.springai.ModelNotRetriableException} naming {@link #READ_FROM}.
 */
public final class OpenAiInternals {

    /** What these members were read from, for the exception of a member not found. */
    public static final String READ_FROM = "Spring AI 2.0.1 with the OpenAI Java SDK 4.49.0";

    /** The chat model's synchronous SDK client: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_CLIENT = new PrivateField(OpenAiChatModel.class, "openAiClient", READ_FROM);

    /** The chat model's asynchronous SDK client: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_CLIENT_ASYNC = new PrivateField(OpenAiChatModel.class,
            "openAiClientAsync", READ_FROM);

    /** The chat model's tool calling manager: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_TOOL_CALLING_MANAGER = new PrivateField(OpenAiChatModel.class,
            "toolCallingManager", READ_FROM);

    /** The chat model's observation registry: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_OBSERVATION_REGISTRY = new PrivateField(OpenAiChatModel.class,
            "observationRegistry", READ_FROM);

    /** The chat model's observation convention: it has a setter and no getter. */
    public static final PrivateField CHAT_OBSERVATION_CONVENTION = new PrivateField(OpenAiChatModel.class,
            "observationConvention", READ_FROM);

    /** The embedding model's SDK client: its constructor takes it, and no getter gives it back. */
    public static final PrivateField EMBEDDING_CLIENT = new PrivateField(OpenAiEmbeddingModel.class,
            "openAiClient", READ_FROM);

    /** The embedding model's metadata mode: its constructor takes it, and no getter gives it back. */
    public static final PrivateField EMBEDDING_METADATA_MODE = new PrivateField(OpenAiEmbeddingModel.class,
            "metadataMode", READ_FROM);

    /** The embedding model's observation registry: its constructor takes it, and no getter gives it back. */
    public static final PrivateField EMBEDDING_OBSERVATION_REGISTRY = new PrivateField(OpenAiEmbeddingModel.class,
            "observationRegistry", READ_FROM);

    /** The embedding model's observation convention: it has a setter and no getter. */
    public static final PrivateField EMBEDDING_OBSERVATION_CONVENTION = new PrivateField(OpenAiEmbeddingModel.class,
            "observationConvention", READ_FROM);

    /** The SDK client's options (retries, transport, executor): the SDK keeps them internal. */
    public static final PrivateField CLIENT_OPTIONS = new PrivateField(OpenAIClientImpl.class,
            "clientOptions", READ_FROM);

    /** The asynchronous SDK client's options: the SDK keeps them internal. */
    public static final PrivateField CLIENT_ASYNC_OPTIONS = new PrivateField(OpenAIClientAsyncImpl.class,
            "clientOptions", READ_FROM);

    /** The transport the client was given, before the SDK's retry and logging layers: no getter. */
    public static final PrivateField TRANSPORT = new PrivateField(ClientOptions.class, "originalHttpClient", READ_FROM);

    /** Spring AI's transport inside the SDK's closing wrapper: the wrapper has no getter. */
    public static final PrivateField CLOSING_TARGET = new PrivateField(PhantomReachableClosingHttpClient.class,
            "httpClient", READ_FROM);

    /** Whether Spring AI's transport shuts its dispatcher down on close: no getter; OkHttp's silent retry. */
    public static final PrivateField OWNS_DISPATCHER = new PrivateField(SpringAiOpenAiHttpClient.class,
            "ownsDispatcherExecutor", READ_FROM);

    /** Spring AI's transport on another OkHttp client: its builder makes a new client; OkHttp's silent retry. */
    public static final PrivateConstructor SPRING_AI_TRANSPORT = new PrivateConstructor(SpringAiOpenAiHttpClient.class,
            READ_FROM, OkHttpClient.class, boolean.class);

    /**
     * The path to a chat completion stream, whose views are proxied by their (public) names: the SDK
     * offers no hook by which closing a stream ends its exchange.
     */
    public static final ForwardingProxy.ViewPath<OpenAIClientAsync> CHAT_COMPLETION_STREAMS =
            new ForwardingProxy.ViewPath<>(OpenAIClientAsync.class,
                    List.of(new ForwardingProxy.View("chat", ChatServiceAsync.class),
                            new ForwardingProxy.View("completions", ChatCompletionServiceAsync.class)),
                    "createStreaming", ChatCompletionCreateParams.class);

    /** Every member above, for a native image's reflection hints. */
    public static final List<PrivateMember> MEMBERS = List.of(SPRING_AI_TRANSPORT, CHAT_CLIENT, CHAT_CLIENT_ASYNC,
            CHAT_TOOL_CALLING_MANAGER, CHAT_OBSERVATION_REGISTRY, CHAT_OBSERVATION_CONVENTION, EMBEDDING_CLIENT,
            EMBEDDING_METADATA_MODE, EMBEDDING_OBSERVATION_REGISTRY, EMBEDDING_OBSERVATION_CONVENTION, CLIENT_OPTIONS,
            CLIENT_ASYNC_OPTIONS, TRANSPORT, CLOSING_TARGET, OWNS_DISPATCHER);

    private OpenAiInternals() {
    }
}
