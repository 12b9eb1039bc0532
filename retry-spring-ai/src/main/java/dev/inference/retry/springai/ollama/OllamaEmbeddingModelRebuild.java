package dev.inference.retry.springai.ollama;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.internal.OllamaInternals;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationConvention;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaEmbeddingOptions;
import org.springframework.ai.ollama.management.ModelManagementOptions;
import org.springframework.web.client.ResponseErrorHandler;

/**
 * Rebuilds an {@link OllamaEmbeddingModel} (Spring AI 2.0.1), keeping its class, its options, observation
 * registry and convention, on an {@link OllamaApi} of its own whose blocking exchanges a {@link Retrier}
 * retries ({@link RetriedOllamaApi}). Spring AI 2.0.1 gives this model no retries of its own, so there is
 * nothing to turn off. One {@code call} is one exchange, so a batched {@code embed}, which calls once per
 * sub-batch, retries each sub-batch on its own and never sends an embedded one again.
 *
 * <p>Traps: the model exposes none of this, so it is read from its private fields, declared in
 * {@link OllamaInternals} with the version they were read from. A field not found,
 * or a bean of a subclass (which a rebuild would lose), fails startup with a
 * {@link ModelNotRetriableException}. The rebuilt model pulls no model: the model it replaces did what
 * its model management asked when it was built.
 */
final class OllamaEmbeddingModelRebuild {

    private OllamaEmbeddingModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @param beanName its bean name, for the exception
     * @return {@code true} if its exchanges are already retried
     */
    static boolean isRetried(OllamaEmbeddingModel model, String beanName) {
        return RetriedOllamaApi.isRetried(OllamaInternals.EMBEDDING_API.read(model, beanName), beanName);
    }

    /**
     * Rebuilds a model on a retried client.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param errorHandler the handler with which the model's {@code RestClient} turns an error status into
     *     its exception, as Spring AI's auto-configuration gave it to the {@code OllamaApi}
     * @return a new model of the same class
     * @throws ModelNotRetriableException if the model or its client do not have the expected shape
     */
    static OllamaEmbeddingModel rebuild(OllamaEmbeddingModel model, String beanName, Retrier retrier,
            ResponseErrorHandler errorHandler) {
        if (model.getClass() != OllamaEmbeddingModel.class) {
            throw new ModelNotRetriableException("embedding model", beanName, "its class "
                    + model.getClass().getName() + " extends OllamaEmbeddingModel, and rebuilding it as an "
                    + "OllamaEmbeddingModel would lose what it adds", null);
        }
        OllamaApi api = OllamaInternals.EMBEDDING_API.read(model, beanName);
        OllamaEmbeddingOptions options = OllamaInternals.EMBEDDING_OPTIONS.read(model, beanName);
        ObservationRegistry observationRegistry = OllamaInternals.EMBEDDING_OBSERVATION_REGISTRY.read(model, beanName);
        EmbeddingModelObservationConvention convention = OllamaInternals.EMBEDDING_OBSERVATION_CONVENTION
            .read(model, beanName);
        OllamaEmbeddingModel rebuilt = OllamaEmbeddingModel.builder()
            .ollamaApi(RetriedOllamaApi.of(api, beanName, retrier, errorHandler))
            .options(options)
            .observationRegistry(observationRegistry)
            .modelManagementOptions(ModelManagementOptions.defaults())
            .build();
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }
}
