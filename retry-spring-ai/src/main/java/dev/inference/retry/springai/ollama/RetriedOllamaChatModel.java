package dev.inference.retry.springai.ollama;

import dev.inference.client.CallContext;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.springai.exchange.RetryingExchangeFilter;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.ollama.management.ModelManagementOptions;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;

/**
 * The {@link OllamaChatModel} that {@link OllamaChatModelRebuild} makes: the model itself, on an
 * {@code OllamaApi} whose exchanges are retried, with one attempt per exchange at Spring AI's level, and
 * with streams whose cancellation reaches their exchange until its content begins.
 *
 * <p>Spring AI 2.0.1's Ollama stream groups its chunks with {@code windowUntil}, which holds a
 * subscriber's cancellation back from the exchange beneath it: a stream cancelled during a retry's
 * wait would make its next request all the same. So each subscription to a stream of this model gets a
 * {@link CallContext} of its own, which its cancellation cancels and which reaches the
 * {@link RetryingExchangeFilter} through the Reactor context; everything else is the model's own. Once
 * content flows, the response's body is Spring AI's, and goes on as it does today. A subclass, not a
 * proxy: it needs no bytecode made at run time, and the calls the model makes to its own
 * {@code stream(Prompt)} (from {@code stream(String)}, say) come here too.
 */
final class RetriedOllamaChatModel extends OllamaChatModel {

    /**
     * Creates the model.
     *
     * @param api the client, whose exchanges are retried
     * @param options the model's options
     * @param toolCallingManager the model's tool calling manager
     * @param observationRegistry the model's observation registry
     */
    RetriedOllamaChatModel(OllamaApi api, OllamaChatOptions options, ToolCallingManager toolCallingManager,
            ObservationRegistry observationRegistry) {
        // The default model management pulls nothing: the model this one replaces did that when it was built.
        super(api, options, toolCallingManager, observationRegistry, ModelManagementOptions.defaults(),
                new RetryTemplate(RetryPolicy.withMaxRetries(0)));
    }

    /**
     * Streams as the model does; cancelling a subscription before the content begins also ends its
     * exchange: a retry's wait, or the request in flight, with no further request. A stream that stalls
     * past its {@code stream-idle-timeout} ends with the {@link StreamStalledException} itself, not the
     * client's exception for its body around it.
     *
     * @param prompt the prompt
     * @return the model's stream
     */
    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        Flux<ChatResponse> stream = super.stream(prompt);
        return Flux.defer(() -> {
            CallContext call = CallContext.cancellable();
            // After the cancellation has gone up the stream, so that what the call signals on its way down
            // finds every operator cancelled and is dropped quietly.
            return stream.doFinally((signal) -> {
                if (signal == SignalType.CANCEL) {
                    call.cancel();
                }
            }).contextWrite(RetryingExchangeFilter.cancelledWith(call));
        }).onErrorMap((thrown) -> (thrown.getCause() instanceof StreamStalledException stalled) ? stalled : thrown);
    }
}
