package dev.inference.retry.springai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * An application's own chat model, as one would write it: not final, calling an OpenAI-compatible chat
 * completions endpoint with Spring's {@code RestClient} for {@code call} and {@code WebClient} (server-sent
 * events) for {@code stream}, and letting their exceptions through. It has no retries of its own.
 */
public class RestClientChatModel implements ChatModel {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
    };

    private final RestClient restClient;

    private final WebClient webClient;

    public RestClientChatModel(String baseUrl) {
        this.restClient = RestClient.builder().baseUrl(baseUrl).requestFactory(new JdkClientHttpRequestFactory()).build();
        this.webClient = WebClient.builder().baseUrl(baseUrl).clientConnector(new JdkClientHttpConnector()).build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        String body = this.restClient.post()
            .uri(OpenAiWire.PATH)
            .contentType(MediaType.APPLICATION_JSON)
            .body(request(prompt, false))
            .retrieve()
            .body(String.class);
        return response(read(body).path("choices").path(0).path("message").path("content").asText());
    }

    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        return this.webClient.post()
            .uri(OpenAiWire.PATH)
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(request(prompt, true))
            .retrieve()
            .bodyToFlux(EVENTS)
            .mapNotNull(ServerSentEvent::data)
            .takeWhile((data) -> !data.equals("[DONE]"))
            .map((data) -> read(data).path("choices").path(0).path("delta").path("content"))
            .filter(JsonNode::isTextual)
            .map((content) -> response(content.asText()));
    }

    private static String request(Prompt prompt, boolean stream) {
        try {
            return JSON.writeValueAsString(Map.of("model", "test", "stream", stream, "messages",
                    List.of(Map.of("role", "user", "content", prompt.getContents()))));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static ChatResponse response(String content) {
        return new ChatResponse(List.of(new Generation(new AssistantMessage(content))));
    }
}
