package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.internal.OpenAiInternals;
import dev.inference.retry.time.WaitScheduler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.openai.OpenAiChatModel;

/**
 * Rebuilds a {@link OpenAiChatModel} (Spring AI 2.0.1) on SDK clients whose HTTP exchanges a
 * {@link Retrier} retries, keeping its class and everything else it was built with: the same options,
 * tool calling manager, observation registry and convention, and each SDK client re-optioned on a
 * retrying transport that sends each attempt once ({@link OpenAiClients}). The asynchronous client is
 * also wrapped by {@link CancellableStreams}, so that closing a stream ends its exchange, and reads each
 * stream on the thread that read its first event.
 *
 * <p>Traps: the model exposes none of this, so it is read from its private fields, declared in
 * {@link OpenAiInternals} with the version they were read from. A field not found
 * (another version, or clients that are not the SDK's own) fails startup with a
 * {@link ModelNotRetriableException}. A model whose clients would
 * retry each exchange themselves is not rebuilt: a {@link ModelClientRetriesException} names
 * {@value OpenAiProvider#CLIENT_RETRIES_PROPERTY}, which the starter sets to {@code 0} when unset.
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
        return CancellableStreams.isWrapper(OpenAiInternals.CHAT_CLIENT_ASYNC.read(model, beanName));
    }

    /**
     * Returns the retries that the model's own SDK clients make per exchange: the larger of its
     * synchronous and asynchronous clients' {@code maxRetries}.
     *
     * @param model the model, as Spring AI or the application built it
     * @param beanName its bean name, for the exception
     * @return the retries in effect, {@code 0} when each exchange is one attempt
     * @throws ModelNotRetriableException if the model or its clients do not have the expected shape
     */
    static int clientRetries(OpenAiChatModel model, String beanName) {
        OpenAIClient client = OpenAiInternals.CHAT_CLIENT.read(model, beanName);
        OpenAIClientAsync clientAsync = OpenAiInternals.CHAT_CLIENT_ASYNC.read(model, beanName);
        requireSdkClients(client, clientAsync, beanName);
        return Math.max(OpenAiClients.options(client, beanName).maxRetries(),
                OpenAiClients.options(clientAsync, beanName).maxRetries());
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
    static OpenAiChatModel rebuild(OpenAiChatModel model, String beanName, Retrier retrier, WaitScheduler waits) {
        OpenAIClient client = OpenAiInternals.CHAT_CLIENT.read(model, beanName);
        OpenAIClientAsync clientAsync = OpenAiInternals.CHAT_CLIENT_ASYNC.read(model, beanName);
        ToolCallingManager toolCallingManager = OpenAiInternals.CHAT_TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = OpenAiInternals.CHAT_OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = OpenAiInternals.CHAT_OBSERVATION_CONVENTION.read(model, beanName);
        requireSdkClients(client, clientAsync, beanName);
        ClientOptions options = OpenAiClients.options(client, beanName);
        ClientOptions asyncOptions = OpenAiClients.options(clientAsync, beanName);
        int clientRetries = Math.max(options.maxRetries(), asyncOptions.maxRetries());
        if (clientRetries > 0) {
            throw ModelClientRetriesException.chatModel(beanName, clientRetries, OpenAiProvider.CLIENT_RETRIES_PROPERTY,
                    OpenAiClients.retriesNote(OpenAiProvider.CLIENT_RETRIES_PROPERTY));
        }

        StreamCalls calls = new StreamCalls();
        OpenAIClient retried = OpenAiClients.retried(client, options, beanName, retrier, waits, calls);
        OpenAIClientAsync retriedAsync = CancellableStreams
            .wrap(OpenAiClients.retried(clientAsync, asyncOptions, beanName, retrier, waits, calls), calls);
        OpenAiChatModel rebuilt = buildWith(model, retried, retriedAsync, toolCallingManager, observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    private static void requireSdkClients(OpenAIClient client, OpenAIClientAsync clientAsync, String beanName) {
        if (!(client instanceof OpenAIClientImpl) || !(clientAsync instanceof OpenAIClientAsyncImpl)) {
            throw ModelNotRetriableException.chatModel(beanName, "its OpenAI clients (" + client.getClass().getName()
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
