package dev.inference.sample.web;

import dev.inference.client.Authorizer;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.sample.SampleInferenceProperties;
import java.io.IOException;
import java.util.Map;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.task.TaskExecutor;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Serves chat calls through the application's {@link InferenceClient}, which the retry starter has
 * wrapped. Each call gets its own {@link CallContext}: the configured timeout as its deadline and
 * the configured credentials as its {@link Authorizer}.
 */
@RestController
class ChatController {

    private final InferenceClient client;

    private final Authorizer authorizer;

    private final SampleInferenceProperties properties;

    private final TaskExecutor executor;

    ChatController(InferenceClient client, Authorizer authorizer, SampleInferenceProperties properties,
            @Qualifier("applicationTaskExecutor") TaskExecutor executor) {
        this.client = client;
        this.authorizer = authorizer;
        this.properties = properties;
        this.executor = executor;
    }

    /**
     * Answers a prompt in one piece. Failures become problem details (see {@link ChatFailures}).
     */
    @GetMapping("/chat")
    ChatReply chat(@RequestParam String prompt) {
        InferenceResponse response = this.client.invoke(request(prompt), newContext());
        return new ChatReply(response.output(), response.attempts());
    }

    /**
     * Streams the answer to a prompt as server-sent events: one {@code chunk} event per piece of
     * text ({@code {"content": ...}}), then a {@code done} event ({@code {"attempts": n}}), or an
     * {@code error} event holding the problem detail (with {@code attempts}) if the stream fails
     * under way. Establishment failures, including the retries, happen before the response starts,
     * so they are answered with a problem detail and its status like {@code /chat}.
     */
    @GetMapping("/chat/stream")
    SseEmitter stream(@RequestParam String prompt) {
        CallContext context = newContext();
        StreamReader reader = this.client.stream(request(prompt), context);
        // No emitter timeout: the call's deadline ends the stream.
        Runnable release = () -> {
            context.cancel();
            reader.close();
        };
        return SseRelay.start(this.executor, release, (emitter) -> relay(reader, emitter));
    }

    private void relay(StreamReader reader, SseEmitter emitter) {
        try (reader) {
            while (true) {
                StreamEvent event;
                try {
                    if (!reader.hasNext()) {
                        break;
                    }
                    event = reader.next();
                }
                catch (RuntimeException failure) {
                    ProblemDetail problem = ChatFailures.problem(failure);
                    problem.setProperty("attempts", reader.result().attempts());
                    emitter.send(SseEmitter.event().name("error").data(problem));
                    emitter.complete();
                    return;
                }
                emitter.send(SseEmitter.event().name("chunk").data(Map.of("content", event.data())));
            }
            emitter.send(SseEmitter.event().name("done").data(Map.of("attempts", reader.result().attempts())));
            emitter.complete();
        }
        catch (IOException | IllegalStateException clientGone) {
            // The client disconnected or the emitter is already over; its callbacks released the call.
        }
    }

    private InferenceRequest request(String prompt) {
        return InferenceRequest.of(this.properties.getModel(), prompt);
    }

    private CallContext newContext() {
        return CallContext.withTimeout(this.properties.getTimeout()).withAuthorizer(this.authorizer);
    }
}
