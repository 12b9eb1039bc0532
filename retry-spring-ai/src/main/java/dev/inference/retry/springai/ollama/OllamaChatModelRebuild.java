package dev.inference.retry.springai.ollama;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ChatModelNotRetriableException;
import dev.inference.retry.springai.exchange.RetryingExchangeFilter;
import dev.inference.retry.springai.exchange.RetryingRequestInterceptor;
import dev.inference.retry.springai.support.PrivateField;
import io.micrometer.observation.ObservationRegistry;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Rebuilds an {@link OllamaChatModel} (Spring AI 2.0.1) as a {@link RetriedOllamaChatModel}, a subclass,
 * on an {@link OllamaApi} of its own whose HTTP exchanges a {@link Retrier} retries: its
 * {@link RestClient} and {@link WebClient} are the original ones {@linkplain RestClient#mutate() mutated}
 * (everything kept) with a {@link RetryingRequestInterceptor} for {@code call} and a
 * {@link RetryingExchangeFilter} for {@code stream} as the innermost link, and its {@link RetryTemplate}
 * makes one attempt. The original {@code OllamaApi} and retry template, beans the embedding model and
 * unwrapped chat models share, are left untouched. Why beneath the bean and not a proxy: only the HTTP
 * exchange shows the status and the provider's {@code Retry-After}.
 *
 * <p>Traps: the model and its API expose none of this, so it is read by reflection from their private
 * fields; this is the one class that knows the private shape of {@code OllamaChatModel} and
 * {@code OllamaApi} 2.0.1. A field not found, or a bean that is a subclass of the application's (which
 * a rebuild would lose), fails startup with a {@link ChatModelNotRetriableException}. An error Ollama
 * writes into a stream's body carries no type, so it is never retried.
 */
final class OllamaChatModelRebuild {

    private static final String SUPPORTED = "Spring AI 2.0.1's Ollama model";

    private static final PrivateField CHAT_API = new PrivateField(OllamaChatModel.class, "chatApi", SUPPORTED);

    private static final PrivateField TOOL_CALLING_MANAGER = new PrivateField(OllamaChatModel.class,
            "toolCallingManager", SUPPORTED);

    private static final PrivateField OBSERVATION_REGISTRY = new PrivateField(OllamaChatModel.class,
            "observationRegistry", SUPPORTED);

    private static final PrivateField OBSERVATION_CONVENTION = new PrivateField(OllamaChatModel.class,
            "observationConvention", SUPPORTED);

    private static final PrivateField REST_CLIENT = new PrivateField(OllamaApi.class, "restClient", SUPPORTED);

    private static final PrivateField WEB_CLIENT = new PrivateField(OllamaApi.class, "webClient", SUPPORTED);

    /** The private fields a rebuild reads, for a native image's reflection hints. */
    static final List<PrivateField> FIELDS = List.of(CHAT_API, TOOL_CALLING_MANAGER, OBSERVATION_REGISTRY,
            OBSERVATION_CONVENTION, REST_CLIENT, WEB_CLIENT);

    private OllamaChatModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @return {@code true} if its exchanges are already retried
     */
    static boolean isRetried(OllamaChatModel model) {
        return model instanceof RetriedOllamaChatModel;
    }

    /**
     * Rebuilds a model on retried clients.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param errorHandler the handler with which the model's {@code RestClient} turns an error status into
     *     its exception, as Spring AI's auto-configuration gave it to the {@code OllamaApi}
     * @return a new model, of a subclass of the model's class
     * @throws ChatModelNotRetriableException if the model or its client do not have the expected shape
     */
    static OllamaChatModel rebuild(OllamaChatModel model, String beanName, Retrier retrier,
            ResponseErrorHandler errorHandler) {
        if (model.getClass() != OllamaChatModel.class) {
            throw new ChatModelNotRetriableException(beanName, "its class " + model.getClass().getName()
                    + " extends OllamaChatModel, and rebuilding it as an OllamaChatModel would lose what it adds",
                    null);
        }
        OllamaApi api = CHAT_API.read(model, beanName);
        ToolCallingManager toolCallingManager = TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = OBSERVATION_CONVENTION.read(model, beanName);
        RestClient restClient = REST_CLIENT.read(api, beanName);
        WebClient webClient = WEB_CLIENT.read(api, beanName);

        OllamaApi retried = OllamaApi.builder()
            .baseUrl(baseUrlOf(restClient))
            .restClientBuilder(restClient.mutate().requestInterceptor(new RetryingRequestInterceptor(retrier,
                    errorHandler)))
            .webClientBuilder(webClient.mutate().filter(new RetryingExchangeFilter(retrier)))
            .responseErrorHandler(NoFurtherHandling.INSTANCE)
            .build();
        OllamaChatModel rebuilt = new RetriedOllamaChatModel(retried, model.getOptions(), toolCallingManager,
                observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    /**
     * Returns the base URL a client resolves its requests' paths against: the URI its URI builder starts
     * from. The request spec is only built to read it; no request is sent.
     */
    private static String baseUrlOf(RestClient client) {
        AtomicReference<URI> base = new AtomicReference<>();
        client.get().uri((builder) -> {
            URI uri = builder.build();
            base.set(uri);
            return uri;
        });
        return Objects.requireNonNull(base.get(), "The client's URI builder was not called").toString();
    }

    /**
     * The status handler {@code OllamaApi}'s builder appends to the mutated client, after the original's
     * own handler: it handles nothing, so that an error status goes on to the client's own default
     * handler exactly as in the original client.
     */
    private enum NoFurtherHandling implements ResponseErrorHandler {

        INSTANCE;

        @Override
        public boolean hasError(ClientHttpResponse response) {
            return false;
        }
    }
}
