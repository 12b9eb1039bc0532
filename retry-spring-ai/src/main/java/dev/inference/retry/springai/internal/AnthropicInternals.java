package dev.inference.retry.springai.internal;

import com.anthropic.backends.Backend;
import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.AnthropicClientAsyncImpl;
import com.anthropic.client.AnthropicClientImpl;
import com.anthropic.core.ClientOptions;
import com.anthropic.core.http.PhantomReachableClosingHttpClient;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.services.async.MessageServiceAsync;
import java.util.List;
import okhttp3.OkHttpClient;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;

/**
 * The private members of Spring AI's Anthropic chat model, of its OkHttp transport and of the Anthropic
 * Java SDK that the rebuild in {@code dev.inference.retry.springai.anthropic} reads, each beside the
 * version it was read from and the reason no public way exists. The model's SDK clients have public
 * getters, which the rebuild uses. Spring AI's public seam for the transport,
 * {@code AnthropicHttpClientBuilderCustomizer}, serves every Anthropic model, wrapped or not, and its
 * builder has no setting for OkHttp's silent retry of a failed connection: hence the transport's members.
 *
 * <p>For another version whose members differ, declare its members here beside these and choose by
 * {@link PrivateField#isPresent()}; a member not found fails startup with a
 * {@link dev.inference.retry.springai.ModelNotRetriableException} naming {@link #READ_FROM}.
 */
public final class AnthropicInternals {

    /** What these members were read from, for the exception of a member not found. */
    public static final String READ_FROM = "Spring AI 2.0.1 with the Anthropic Java SDK 2.52.0";

    /** The chat model's tool calling manager: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_TOOL_CALLING_MANAGER = new PrivateField(AnthropicChatModel.class,
            "toolCallingManager", READ_FROM);

    /** The chat model's observation registry: its builder takes it, and no getter gives it back. */
    public static final PrivateField CHAT_OBSERVATION_REGISTRY = new PrivateField(AnthropicChatModel.class,
            "observationRegistry", READ_FROM);

    /** The chat model's observation convention: it has a setter and no getter. */
    public static final PrivateField CHAT_OBSERVATION_CONVENTION = new PrivateField(AnthropicChatModel.class,
            "observationConvention", READ_FROM);

    /** The SDK client's options (retries, transport, executor): the SDK keeps them internal. */
    public static final PrivateField CLIENT_OPTIONS = new PrivateField(AnthropicClientImpl.class,
            "clientOptions", READ_FROM);

    /** The asynchronous SDK client's options: the SDK keeps them internal. */
    public static final PrivateField CLIENT_ASYNC_OPTIONS = new PrivateField(AnthropicClientAsyncImpl.class,
            "clientOptions", READ_FROM);

    /** The transport the client was given, before the SDK's retry and logging layers: no getter. */
    public static final PrivateField TRANSPORT = new PrivateField(ClientOptions.class, "originalHttpClient", READ_FROM);

    /** Spring AI's transport inside the SDK's closing wrapper: the wrapper has no getter. */
    public static final PrivateField CLOSING_TARGET = new PrivateField(PhantomReachableClosingHttpClient.class,
            "httpClient", READ_FROM);

    /** Spring AI's transport's OkHttp client: no getter (OpenAI's has one); OkHttp's silent retry. */
    public static final PrivateField OK_HTTP = new PrivateField(SpringAiAnthropicHttpClient.class,
            "okHttpClient", READ_FROM);

    /** Spring AI's transport's backend (base URL, auth): no getter; OkHttp's silent retry. */
    public static final PrivateField BACKEND = new PrivateField(SpringAiAnthropicHttpClient.class,
            "backend", READ_FROM);

    /** Whether Spring AI's transport shuts its dispatcher down on close: no getter; OkHttp's silent retry. */
    public static final PrivateField OWNS_DISPATCHER = new PrivateField(SpringAiAnthropicHttpClient.class,
            "ownsDispatcherExecutor", READ_FROM);

    /** Spring AI's transport on another OkHttp client: its builder makes a new client; OkHttp's silent retry. */
    public static final PrivateConstructor SPRING_AI_TRANSPORT = new PrivateConstructor(
            SpringAiAnthropicHttpClient.class, READ_FROM, OkHttpClient.class, Backend.class, boolean.class);

    /**
     * The path to a raw message stream, whose views are proxied by their (public) names: the SDK offers no
     * hook by which closing a stream ends its exchange.
     */
    public static final ForwardingProxy.ViewPath<AnthropicClientAsync> MESSAGE_STREAMS =
            new ForwardingProxy.ViewPath<>(AnthropicClientAsync.class,
                    List.of(new ForwardingProxy.View("messages", MessageServiceAsync.class),
                            new ForwardingProxy.View("withRawResponse", MessageServiceAsync.WithRawResponse.class)),
                    "createStreaming", MessageCreateParams.class);

    /** Every member above, for a native image's reflection hints. */
    public static final List<PrivateMember> MEMBERS = List.of(SPRING_AI_TRANSPORT, CHAT_TOOL_CALLING_MANAGER,
            CHAT_OBSERVATION_REGISTRY, CHAT_OBSERVATION_CONVENTION, CLIENT_OPTIONS, CLIENT_ASYNC_OPTIONS, TRANSPORT,
            CLOSING_TARGET, OK_HTTP, BACKEND, OWNS_DISPATCHER);

    private AnthropicInternals() {
    }
}
