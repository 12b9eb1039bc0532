package dev.inference.retry.springai.google;

import com.google.genai.Client;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.ExhaustedException;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.CancellationException;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import reactor.core.publisher.Flux;

/**
 * The {@link GoogleGenAiChatModel} that {@link GoogleGenAiChatModelRebuild} makes: the model itself, on a
 * client whose model exchanges are retried beneath it ({@link RetryingGoogleGenAiInterceptor}), with a
 * retry template that makes one attempt, and with the retry's own outcomes thrown as they are.
 *
 * <p>Spring AI 2.0.1's model wraps whatever its client throws in a plain {@code RuntimeException}
 * ("Failed to generate content"). For a permanent failure that wrapper is what the caller gets today,
 * the SDK's exception as its cause, and so it stays. When the retry gives up ({@link ExhaustedException})
 * or a wait is ended (a cancellation, a passed deadline, the application's shutdown), or a stream
 * stalls ({@link StreamStalledException}), the caller gets that exception itself, as from every other
 * retried model. A subclass, not a proxy: it needs no
 * bytecode made at run time, and the model's calls of its own {@code call(Prompt)} come here too.
 */
final class RetriedGoogleGenAiChatModel extends GoogleGenAiChatModel {

    /**
     * Creates the model.
     *
     * @param client the client, whose model exchanges are retried
     * @param options the model's options
     * @param toolCallingManager the model's tool calling manager
     * @param observationRegistry the model's observation registry
     */
    RetriedGoogleGenAiChatModel(Client client, GoogleGenAiChatOptions options, ToolCallingManager toolCallingManager,
            ObservationRegistry observationRegistry) {
        super(client, options, toolCallingManager, new RetryTemplate(RetryPolicy.withMaxRetries(0)),
                observationRegistry);
    }

    /**
     * Calls the model; see the class documentation for what it throws.
     *
     * @param prompt the prompt
     * @return the model's answer
     */
    @Override
    public ChatResponse call(Prompt prompt) {
        try {
            return super.call(prompt);
        }
        catch (RuntimeException ex) {
            throw retryOutcome(ex);
        }
    }

    /**
     * Streams from the model; see the class documentation for what it signals.
     *
     * @param prompt the prompt
     * @return the model's stream
     */
    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        return super.stream(prompt).onErrorMap(RuntimeException.class, RetriedGoogleGenAiChatModel::retryOutcome);
    }

    /** The retry's own outcome in place of the model's plain wrapper of it; anything else as it is. */
    static RuntimeException retryOutcome(RuntimeException thrown) {
        if (thrown.getClass() == RuntimeException.class && thrown.getCause() instanceof RuntimeException cause
                && (cause instanceof ExhaustedException || cause instanceof CancellationException
                        || cause instanceof DeadlineExceededException || cause instanceof ShutdownException
                        || cause instanceof StreamStalledException)) {
            return cause;
        }
        return thrown;
    }
}
