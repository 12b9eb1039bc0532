package dev.inference.sample.web;

import dev.inference.failure.NetworkException;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.task.TaskExecutor;
import org.springframework.http.ProblemDetail;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Serves chat calls through a Spring AI {@link ChatClient} over the fallback chain {@code chat}: the OpenAI
 * chat model, which the retry starter retries beneath the bean, in each of its HTTP exchanges with the
 * provider, and the Anthropic one, which answers when OpenAI's retries run out, its quota is used up or
 * it asks to wait. Nothing here
 * knows about retries: the failures that reach this controller are final, and become problem details
 * as those of {@code /chat} do (see {@link ChatFailures}).
 */
@RestController
class AiChatController {

    private final ChatClient chatClient;

    private final TaskExecutor executor;

    AiChatController(ChatClient chatClient, @Qualifier("applicationTaskExecutor") TaskExecutor executor) {
        this.chatClient = chatClient;
        this.executor = executor;
    }

    /**
     * Answers a prompt in one piece.
     */
    @GetMapping("/ai/chat")
    AiChatReply chat(@RequestParam String prompt) {
        ChatResponse response = this.chatClient.prompt().user(prompt).call().chatResponse();
        Generation result = (response != null) ? response.getResult() : null;
        String content = (result != null) ? result.getOutput().getText() : null;
        String model = (response != null) ? response.getMetadata().getModel() : null;
        return new AiChatReply(Objects.requireNonNullElse(content, ""), Objects.requireNonNullElse(model, ""));
    }

    /**
     * Streams the answer to a prompt as server-sent events: one {@code chunk} event per piece of text
     * ({@code {"content": ...}}), then a {@code done} event with the provider's finish reason
     * ({@code {"finishReason": "STOP"}}), or an {@code error} event holding the problem detail if the
     * stream fails under way. A stream that ends without a finish reason was cut short: the OpenAI SDK
     * reads the end of the connection as the end of the stream, so this tells it apart and ends with
     * an {@code error} event. The stream is established before the response starts: the retries of its
     * exchange happen while this waits for the first response, so a stream that never began is
     * answered with a problem detail and its status, like {@code /ai/chat}.
     */
    @GetMapping("/ai/chat/stream")
    SseEmitter stream(@RequestParam String prompt) {
        Stream<ChatResponse> responses = this.chatClient.prompt().user(prompt).stream().chatResponse().toStream();
        Iterator<ChatResponse> iterator = responses.iterator();
        try {
            // Established here, before the response starts: this waits for the first response or the end.
            boolean unused = iterator.hasNext();
        }
        catch (RuntimeException ex) {
            responses.close();
            throw ex;
        }
        // No emitter timeout: the model's own timeout ends a stalled stream.
        return SseRelay.start(this.executor, responses::close, (emitter) -> relay(iterator, emitter));
    }

    private static void relay(Iterator<ChatResponse> responses, SseEmitter emitter) {
        try {
            String finishReason = null;
            while (true) {
                Generation generation;
                try {
                    if (!responses.hasNext()) {
                        break;
                    }
                    generation = responses.next().getResult();
                }
                catch (RuntimeException failure) {
                    emitter.send(SseEmitter.event().name("error").data(ChatFailures.problem(failure)));
                    emitter.complete();
                    return;
                }
                if (generation == null) {
                    continue;
                }
                String text = generation.getOutput().getText();
                if (StringUtils.hasLength(text)) {
                    emitter.send(SseEmitter.event().name("chunk").data(Map.of("content", text)));
                }
                String reason = generation.getMetadata().getFinishReason();
                if (reason != null) {
                    finishReason = reason;
                }
            }
            if (finishReason == null) {
                ProblemDetail cut = ChatFailures.problem(new NetworkException(
                        "The stream ended before the provider gave a finish reason", null));
                emitter.send(SseEmitter.event().name("error").data(cut));
            }
            else {
                emitter.send(SseEmitter.event().name("done").data(Map.of("finishReason", finishReason)));
            }
            emitter.complete();
        }
        catch (IOException | IllegalStateException clientGone) {
            // The client disconnected or the emitter is already over; its callbacks closed the stream.
        }
    }
}
