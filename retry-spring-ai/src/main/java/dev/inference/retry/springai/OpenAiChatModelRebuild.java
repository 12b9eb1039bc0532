package dev.inference.retry.springai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import dev.inference.retry.Retrier;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Field;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.openai.OpenAiChatModel;

/**
 * Rebuilds an {@link OpenAiChatModel} (Spring AI 2.0.1) on SDK clients whose HTTP exchanges a
 * {@link Retrier} retries, keeping everything else the model was built with.
 *
 * <p>{@code OpenAiChatModel} is final and exposes neither its clients nor its tool calling manager,
 * observation registry or observation convention; and the SDK's client exposes neither its options
 * nor the HTTP client it was given. Those are read here, by reflection, from their private fields: this
 * is the one class that knows the private shape of {@code OpenAiChatModel} 2.0.1 and of the OpenAI Java
 * SDK 4.49.0's {@code OpenAIClientImpl}, {@code OpenAIClientAsyncImpl} and {@code ClientOptions}. When a
 * field is not found (another version, or a client that is not the SDK's own), the bean cannot be
 * retried and a {@link ChatModelNotRetriableException} says so at startup.
 *
 * <p>The new model is built with the model's public builder, from the same options, tool calling
 * manager and observation registry, and gets the same observation convention. Each of its two clients
 * is the original one {@linkplain OpenAIClient#withOptions re-optioned} with two changes: its HTTP
 * client is the original transport decorated by a {@link RetryingOpenAiHttpClient}, and its own retries
 * are off ({@code maxRetries(0)}: one attempt per exchange at the SDK's level, whatever
 * {@code spring.ai.openai.max-retries} said). The asynchronous client is also wrapped by
 * {@link CancellableStreams}, so that closing a stream ends its exchange.
 */
final class OpenAiChatModelRebuild {

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
        return CancellableStreams.isWrapper(read(model, OpenAiChatModel.class, "openAiClientAsync", beanName));
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
        OpenAIClient client = read(model, OpenAiChatModel.class, "openAiClient", beanName);
        OpenAIClientAsync clientAsync = read(model, OpenAiChatModel.class, "openAiClientAsync", beanName);
        requireSdkClients(client, clientAsync, beanName);
        ClientOptions options = read(client, OpenAIClientImpl.class, "clientOptions", beanName);
        ClientOptions asyncOptions = read(clientAsync, OpenAIClientAsyncImpl.class, "clientOptions", beanName);
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
     */
    static OpenAiChatModel rebuild(OpenAiChatModel model, String beanName, Retrier retrier, RetryTimer timer) {
        OpenAIClient client = read(model, OpenAiChatModel.class, "openAiClient", beanName);
        OpenAIClientAsync clientAsync = read(model, OpenAiChatModel.class, "openAiClientAsync", beanName);
        ToolCallingManager toolCallingManager = read(model, OpenAiChatModel.class, "toolCallingManager", beanName);
        ObservationRegistry observationRegistry = read(model, OpenAiChatModel.class, "observationRegistry", beanName);
        ChatModelObservationConvention convention = read(model, OpenAiChatModel.class, "observationConvention",
                beanName);
        requireSdkClients(client, clientAsync, beanName);
        ClientOptions options = read(client, OpenAIClientImpl.class, "clientOptions", beanName);
        ClientOptions asyncOptions = read(clientAsync, OpenAIClientAsyncImpl.class, "clientOptions", beanName);
        HttpClient transport = read(options, ClientOptions.class, "originalHttpClient", beanName);
        HttpClient asyncTransport = read(asyncOptions, ClientOptions.class, "originalHttpClient", beanName);

        StreamCalls calls = new StreamCalls();
        OpenAIClient retried = client.withOptions((builder) -> builder
            .httpClient(new RetryingOpenAiHttpClient(transport, retrier, timer, options.streamHandlerExecutor(), calls))
            .maxRetries(0));
        OpenAIClientAsync retriedAsync = CancellableStreams.wrap(clientAsync.withOptions((builder) -> builder
            .httpClient(new RetryingOpenAiHttpClient(asyncTransport, retrier, timer,
                    asyncOptions.streamHandlerExecutor(), calls))
            .maxRetries(0)), calls);
        OpenAiChatModel rebuilt = buildWith(model, retried, retriedAsync, toolCallingManager, observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
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

    @SuppressWarnings("unchecked")
    private static <T> T read(Object target, Class<?> declaringClass, String name, String beanName) {
        Object value;
        try {
            Field field = declaringClass.getDeclaredField(name);
            field.setAccessible(true);
            value = field.get(target);
        }
        catch (NoSuchFieldException | IllegalAccessException | RuntimeException ex) {
            throw new ChatModelNotRetriableException(beanName, "the field " + declaringClass.getName() + "." + name
                    + " could not be read (this module supports Spring AI 2.0.1 with the OpenAI Java SDK 4.49.0)", ex);
        }
        if (value == null) {
            throw new ChatModelNotRetriableException(beanName, "the field " + declaringClass.getName() + "." + name
                    + " is null", null);
        }
        return (T) value;
    }
}
