package dev.inference.retry.springai.google;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.genai.ApiClient;
import com.google.genai.Client;
import com.google.genai.HttpApiClient;
import com.google.genai.types.ClientOptions;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.internal.GoogleInternals;
import io.micrometer.observation.ObservationRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.model.tool.ToolCallingManager;

/**
 * Rebuilds a {@link GoogleGenAiChatModel} (Spring AI 2.0.1) as a {@link RetriedGoogleGenAiChatModel}, a
 * subclass, on a Google GenAI SDK {@link Client} of its own, keeping its options, tool calling manager,
 * observation registry and convention. The client has the settings of the model's (API key or project,
 * location and credentials; HTTP and client options) and an OkHttp client made from the model's, with a
 * {@link RetryingGoogleGenAiInterceptor} in place of the SDK's retries. The original client, a bean that
 * others may share, is left untouched.
 *
 * <p>Why beneath the bean: the SDK lets its OkHttp client be given ({@code ClientOptions.customHttpClient}),
 * and only the exchange shows the error body's {@code status} and {@code RetryInfo} (the SDK's exception
 * keeps neither) and the {@code Retry-After}. Traps: the model and the SDK's client expose none of this,
 * so it is read from their private fields, declared in {@link GoogleInternals}. A field not found, a
 * client in the SDK's replay mode, a bean of a subclass of the application's, or a client whose retry
 * options the application set to retry fails startup with a {@link ModelNotRetriableException}.
 */
final class GoogleGenAiChatModelRebuild {

    /** The SDK's own retry interceptor, which its client builder adds to every OkHttp client. */
    private static final String SDK_RETRY_INTERCEPTOR = "com.google.genai.RetryInterceptor";

    /** The SDK's own part of the headers it adds to every request, which a new client adds again. */
    private static final Pattern SDK_AGENT = Pattern.compile("^google-genai-sdk/\\S+ gl-java/\\S+ ?");

    private GoogleGenAiChatModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @return {@code true} if its exchanges are already retried
     */
    static boolean isRetried(GoogleGenAiChatModel model) {
        return model instanceof RetriedGoogleGenAiChatModel;
    }

    /**
     * Rebuilds a model on a retried client.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every model exchange
     * @return a new model, of a subclass of the model's class
     * @throws ModelNotRetriableException if the model or its client do not have the expected shape, or
     *     its client's retry options ask for retries
     */
    static GoogleGenAiChatModel rebuild(GoogleGenAiChatModel model, String beanName, Retrier retrier) {
        if (model.getClass() != GoogleGenAiChatModel.class) {
            throw ModelNotRetriableException.chatModel(beanName, "its class " + model.getClass().getName()
                    + " extends GoogleGenAiChatModel, and rebuilding it as a GoogleGenAiChatModel would lose what it "
                    + "adds", null);
        }
        Client client = GoogleInternals.CHAT_CLIENT.read(model, beanName);
        ToolCallingManager toolCallingManager = GoogleInternals.CHAT_TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = GoogleInternals.CHAT_OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = GoogleInternals.CHAT_OBSERVATION_CONVENTION.read(model, beanName);
        ApiClient api = GoogleInternals.API_CLIENT.read(client, beanName);
        if (!(api instanceof HttpApiClient)) {
            throw ModelNotRetriableException.chatModel(beanName, "its Google GenAI client's API client ("
                    + api.getClass().getName() + ") is not the SDK's HttpApiClient, whose OkHttp client can be given",
                    null);
        }
        Optional<HttpRetryOptions> retryOptions = api.httpOptions().retryOptions();
        if (retryOptions.isPresent() && !retryOptions.get().attempts().equals(Optional.of(1))) {
            throw ModelNotRetriableException.chatModel(beanName, "its Google GenAI client's HttpOptions.retryOptions ask "
                    + "for " + retryOptions.get().attempts().map(String::valueOf).orElse("the SDK's default of 5")
                    + " attempts per exchange, and each of ours would make them all: build the client with "
                    + "HttpRetryOptions.builder().attempts(1), or without retry options (the SDK's retries are then "
                    + "turned off for this model's exchanges only)", null);
        }
        Optional<ClientOptions> clientOptions = GoogleInternals.CLIENT_OPTIONS.read(api, beanName);
        Client retried = retriedClient(client, api, clientOptions, retrier);
        GoogleGenAiChatModel rebuilt = new RetriedGoogleGenAiChatModel(retried, model.getOptions(), toolCallingManager,
                observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    /** A client with the settings of the model's, on an OkHttp client whose retries are the interceptor's. */
    private static Client retriedClient(Client client, ApiClient api, Optional<ClientOptions> clientOptions,
            Retrier retrier) {
        OkHttpClient.Builder http = api.httpClient().newBuilder();
        http.interceptors().removeIf((each) -> each.getClass().getName().equals(SDK_RETRY_INTERCEPTOR));
        // A timed attempt is a call of its own, on the same client without the interceptor.
        http.addInterceptor(new RetryingGoogleGenAiInterceptor(retrier, http.build()));
        Client.Builder builder = Client.builder()
            .vertexAI(client.vertexAI())
            .enterprise(client.enterprise())
            .httpOptions(withoutSdkHeaders(api.httpOptions()))
            .clientOptions(clientOptions.map(ClientOptions::toBuilder)
                .orElseGet(ClientOptions::builder)
                .customHttpClient(http.build())
                .build());
        String apiKey = api.apiKey();
        String project = api.project();
        String location = api.location();
        GoogleCredentials credentials = api.credentials();
        if (apiKey != null) {
            builder.apiKey(apiKey);
        }
        if (project != null) {
            builder.project(project);
        }
        if (location != null) {
            builder.location(location);
        }
        if (credentials != null) {
            builder.credentials(credentials);
        }
        return builder.build();
    }

    /**
     * The HTTP options a client was built with, as far as they are its own: without the headers the SDK
     * adds to every client (its content type, and its name and version in front of the agent headers),
     * which the new client adds again.
     */
    private static HttpOptions withoutSdkHeaders(HttpOptions options) {
        Map<String, String> headers = new LinkedHashMap<>(options.headers().orElse(Map.of()));
        headers.remove("Content-Type");
        for (String agent : List.of("user-agent", "x-goog-api-client")) {
            String value = headers.remove(agent);
            String own = (value != null) ? SDK_AGENT.matcher(value).replaceFirst("") : "";
            if (!own.isEmpty()) {
                headers.put(agent, own);
            }
        }
        HttpOptions.Builder builder = options.toBuilder();
        return (headers.isEmpty() ? builder.clearHeaders() : builder.headers(headers)).build();
    }
}
