package dev.inference.retry.springai.internal;

import java.util.List;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.util.ClassUtils;

/**
 * The private members of Spring AI's Ollama models and of their {@code OllamaApi} that the rebuilds in
 * {@code dev.inference.retry.springai.ollama} read, each beside the version it was read from and the
 * reason no public way exists. Boot's {@code RestClientCustomizer} and {@code WebClientCustomizer} would
 * reach every client the application builds, the models left alone included; the rebuilt models get an
 * {@code OllamaApi} of their own instead, made from the clients read here.
 *
 * <p>For another version whose members differ, declare its members here beside these and choose by
 * {@link PrivateField#isPresent()}; a member not found fails startup with a
 * {@link dev.inference.retry.springai.ModelNotRetriableException} naming {@link #READ_FROM}.
 */
public final class OllamaInternals {

    /** What these members were read from, for the exception of a member not found. */
    public static final String READ_FROM = "Spring AI 2.0.1's Ollama model";

    /** The chat model's API: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_API = new PrivateField(OllamaChatModel.class, "chatApi", READ_FROM);

    /** The chat model's tool calling manager: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_TOOL_CALLING_MANAGER = new PrivateField(OllamaChatModel.class,
            "toolCallingManager", READ_FROM);

    /** The chat model's observation registry: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_OBSERVATION_REGISTRY = new PrivateField(OllamaChatModel.class,
            "observationRegistry", READ_FROM);

    /** The chat model's observation convention: it has a setter and no getter. */
    public static final PrivateField CHAT_OBSERVATION_CONVENTION = new PrivateField(OllamaChatModel.class,
            "observationConvention", READ_FROM);

    /** The embedding model's API: its constructor takes it, and no getter gives it back. */
    public static final PrivateField EMBEDDING_API = new PrivateField(OllamaEmbeddingModel.class,
            "ollamaApi", READ_FROM);

    /** The embedding model's options: its constructor takes them, and no getter gives them back. */
    public static final PrivateField EMBEDDING_OPTIONS = new PrivateField(OllamaEmbeddingModel.class,
            "options", READ_FROM);

    /** The embedding model's observation registry: its constructor takes it, and no getter gives it back. */
    public static final PrivateField EMBEDDING_OBSERVATION_REGISTRY = new PrivateField(OllamaEmbeddingModel.class,
            "observationRegistry", READ_FROM);

    /** The embedding model's observation convention: it has a setter and no getter. */
    public static final PrivateField EMBEDDING_OBSERVATION_CONVENTION = new PrivateField(OllamaEmbeddingModel.class,
            "observationConvention", READ_FROM);

    /** The API's {@code RestClient} (base URL, headers, codecs): its builder takes one, no getter gives it. */
    public static final PrivateField API_REST_CLIENT = new PrivateField(OllamaApi.class, "restClient", READ_FROM);

    /** The API's {@code WebClient}: its builder takes one, and no getter gives it back. */
    public static final PrivateField API_WEB_CLIENT = new PrivateField(OllamaApi.class, "webClient", READ_FROM);

    /**
     * The transport of the API's {@code RestClient} (Spring Framework 7.0's {@code DefaultRestClient}): no
     * getter gives it, and one on Apache HttpClient 5 retries by itself, so the rebuild must see it.
     */
    public static final PrivateField REST_CLIENT_TRANSPORT = new PrivateField(
            ClassUtils.resolveClassName("org.springframework.web.client.DefaultRestClient", null),
            "clientRequestFactory", "Spring Framework 7.0's RestClient");

    /** Every member above, for a native image's reflection hints. */
    public static final List<PrivateMember> MEMBERS = List.of(CHAT_API, CHAT_TOOL_CALLING_MANAGER,
            CHAT_OBSERVATION_REGISTRY, CHAT_OBSERVATION_CONVENTION, EMBEDDING_API, EMBEDDING_OPTIONS,
            EMBEDDING_OBSERVATION_REGISTRY, EMBEDDING_OBSERVATION_CONVENTION, API_REST_CLIENT, API_WEB_CLIENT,
            REST_CLIENT_TRANSPORT);

    private OllamaInternals() {
    }
}
