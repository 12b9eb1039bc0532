package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClient;
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
import org.springframework.ai.document.MetadataMode;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationConvention;
import org.springframework.ai.openai.OpenAiEmbeddingModel;

/**
 * Rebuilds an {@link OpenAiEmbeddingModel} (Spring AI 2.0.1) on an SDK client whose HTTP exchanges a
 * {@link Retrier} retries, keeping its class and everything else it was built with: the same options,
 * metadata mode, observation registry and convention, and its SDK client re-optioned on a retrying
 * transport ({@link OpenAiClients}). One {@code call} is one exchange, so a batched {@code embed}, which
 * calls once per sub-batch, retries each sub-batch on its own and never sends an embedded one again.
 *
 * <p>Traps: the model exposes its client only in a private field, declared in {@link OpenAiInternals}
 * with the version it was read from. A field not found, a client that is not the SDK's
 * own, or a bean of a subclass (which a rebuild would lose) fails startup with a
 * {@link ModelNotRetriableException}. A client that would retry each exchange itself fails it with a
 * {@link ModelClientRetriesException} naming {@value OpenAiProvider#EMBEDDING_CLIENT_RETRIES_PROPERTY},
 * which the starter sets to {@code 0} when unset.
 */
final class OpenAiEmbeddingModelRebuild {

    private static final String KIND = "embedding model";

    private OpenAiEmbeddingModelRebuild() {
    }

    /**
     * Tells whether a model is already one this class built.
     *
     * @param model the model
     * @param beanName its bean name, for the exception
     * @return {@code true} if its client's exchanges are already retried
     */
    static boolean isRetried(OpenAiEmbeddingModel model, String beanName) {
        OpenAIClient client = OpenAiInternals.EMBEDDING_CLIENT.read(model, beanName);
        return client instanceof OpenAIClientImpl && OpenAiClients.isRetried(OpenAiClients.options(client, beanName),
                beanName);
    }

    /**
     * Returns the retries that the model's own SDK client makes per exchange.
     *
     * @param model the model, as Spring AI or the application built it
     * @param beanName its bean name, for the exception
     * @return the retries in effect, {@code 0} when each exchange is one attempt
     * @throws ModelNotRetriableException if the model or its client do not have the expected shape
     */
    static int clientRetries(OpenAiEmbeddingModel model, String beanName) {
        return OpenAiClients.options(sdkClient(model, beanName), beanName).maxRetries();
    }

    /**
     * Rebuilds a model on a retried client.
     *
     * @param model the model, which is left unchanged and should no longer be used
     * @param beanName its bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param waits the timer of the asynchronous exchanges' waits, which the model does not make
     * @return a new model of the same class
     * @throws ModelNotRetriableException if the model or its client do not have the expected shape
     * @throws ModelClientRetriesException if the model's client would retry each exchange itself
     */
    static OpenAiEmbeddingModel rebuild(OpenAiEmbeddingModel model, String beanName, Retrier retrier,
            WaitScheduler waits) {
        if (model.getClass() != OpenAiEmbeddingModel.class) {
            throw new ModelNotRetriableException(KIND, beanName, "its class " + model.getClass().getName()
                    + " extends OpenAiEmbeddingModel, and rebuilding it as an OpenAiEmbeddingModel would lose what it "
                    + "adds", null);
        }
        OpenAIClient client = sdkClient(model, beanName);
        MetadataMode metadataMode = OpenAiInternals.EMBEDDING_METADATA_MODE.read(model, beanName);
        ObservationRegistry observationRegistry = OpenAiInternals.EMBEDDING_OBSERVATION_REGISTRY.read(model, beanName);
        EmbeddingModelObservationConvention convention = OpenAiInternals.EMBEDDING_OBSERVATION_CONVENTION
            .read(model, beanName);
        ClientOptions options = OpenAiClients.options(client, beanName);
        if (options.maxRetries() > 0) {
            throw new ModelClientRetriesException("EmbeddingModel", beanName, options.maxRetries(),
                    OpenAiProvider.EMBEDDING_CLIENT_RETRIES_PROPERTY,
                    OpenAiClients.retriesNote(OpenAiProvider.EMBEDDING_CLIENT_RETRIES_PROPERTY));
        }
        OpenAiEmbeddingModel rebuilt = OpenAiEmbeddingModel.builder()
            .openAiClient(OpenAiClients.retried(client, options, beanName, retrier, waits, new StreamCalls()))
            .options(model.getOptions())
            .metadataMode(metadataMode)
            .observationRegistry(observationRegistry)
            .build();
        rebuilt.setObservationConvention(convention);
        return rebuilt;
    }

    private static OpenAIClient sdkClient(OpenAiEmbeddingModel model, String beanName) {
        OpenAIClient client = OpenAiInternals.EMBEDDING_CLIENT.read(model, beanName);
        if (!(client instanceof OpenAIClientImpl)) {
            throw new ModelNotRetriableException(KIND, beanName, "its OpenAI client (" + client.getClass().getName()
                    + ") is not the SDK's OpenAIClientImpl, whose HTTP client can be decorated", null);
        }
        return client;
    }
}
