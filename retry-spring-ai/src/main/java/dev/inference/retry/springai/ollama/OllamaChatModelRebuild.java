package dev.inference.retry.springai.ollama;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.internal.OllamaInternals;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.web.client.ResponseErrorHandler;

/**
 * Rebuilds an {@link OllamaChatModel} (Spring AI 2.0.1) as a {@link RetriedOllamaChatModel}, a subclass,
 * on an {@link OllamaApi} of its own whose HTTP exchanges a {@link Retrier} retries
 * ({@link RetriedOllamaApi}: a {@code RetryingRequestInterceptor} for {@code call}, a
 * {@code RetryingExchangeFilter} for {@code stream}), and with a {@link RetryTemplate} that makes one
 * attempt. The original {@code OllamaApi} and retry template, beans the models left alone share, are
 * left untouched. Why beneath the bean and not a proxy: only the HTTP exchange shows the status and the
 * provider's {@code Retry-After}.
 *
 * <p>Traps: the model exposes none of this, so it is read from its private fields, declared in
 * {@link OllamaInternals} with the version they were read from. A field not found, or a
 * bean that is a subclass of the application's (which a rebuild would lose), fails startup with a
 * {@link ModelNotRetriableException}. An error Ollama writes into a stream's body carries no type,
 * so it is never retried.
 */
final class OllamaChatModelRebuild {

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
     * @throws ModelNotRetriableException if the model or its client do not have the expected shape
     */
    static OllamaChatModel rebuild(OllamaChatModel model, String beanName, Retrier retrier,
            ResponseErrorHandler errorHandler) {
        if (model.getClass() != OllamaChatModel.class) {
            throw ModelNotRetriableException.chatModel(beanName, "its class " + model.getClass().getName()
                    + " extends OllamaChatModel, and rebuilding it as an OllamaChatModel would lose what it adds",
                    null);
        }
        OllamaApi api = OllamaInternals.CHAT_API.read(model, beanName);
        ToolCallingManager toolCallingManager = OllamaInternals.CHAT_TOOL_CALLING_MANAGER.read(model, beanName);
        ObservationRegistry observationRegistry = OllamaInternals.CHAT_OBSERVATION_REGISTRY.read(model, beanName);
        ChatModelObservationConvention convention = OllamaInternals.CHAT_OBSERVATION_CONVENTION.read(model, beanName);
        OllamaChatModel rebuilt = new RetriedOllamaChatModel(RetriedOllamaApi.of(api, beanName, retrier, errorHandler),
                model.getOptions(), toolCallingManager, observationRegistry);
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }
}
