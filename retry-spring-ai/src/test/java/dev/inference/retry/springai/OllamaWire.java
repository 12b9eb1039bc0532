package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Bodies in Ollama's wire format: {@code POST /api/chat} answered with one JSON object, or, when the
 * request asks for a stream, with newline-delimited JSON objects ({@code "done":false} for each piece of
 * content, then a last one with {@code "done":true}); {@code POST /api/embed}; and error bodies.
 */
public final class OllamaWire {

    public static final String CHAT = "/api/chat";

    public static final String EMBED = "/api/embed";

    public static final String MODEL = "llama3.2";

    public static final String NDJSON = "application/x-ndjson";

    private OllamaWire() {
    }

    public static ResponseDefinitionBuilder chat(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(chatBody(content));
    }

    /** The body of a whole answer to a chat that did not ask for a stream. */
    public static String chatBody(String content) {
        return """
                {"model":"%s","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"%s"},\
                "done_reason":"stop","done":true,"total_duration":1000,"prompt_eval_count":3,"eval_count":1}"""
            .formatted(MODEL, content);
    }

    /** A stream of one object per piece of content, then the last object, which says "done". */
    public static ResponseDefinitionBuilder stream(String... contents) {
        String chunks = List.of(contents).stream().map(OllamaWire::chunk).collect(Collectors.joining());
        String done = """
                {"model":"%s","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},\
                "done_reason":"stop","done":true,"total_duration":1000,"prompt_eval_count":3,"eval_count":%d}
                """.formatted(MODEL, contents.length);
        return aResponse().withHeader("Content-Type", NDJSON).withBody(chunks + done);
    }

    /** One line of a stream, its newline included. */
    public static String chunk(String content) {
        return """
                {"model":"%s","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"%s"},\
                "done":false}
                """.formatted(MODEL, content);
    }

    public static ResponseDefinitionBuilder error(int status, String message) {
        return aResponse().withStatus(status)
            .withHeader("Content-Type", "application/json")
            .withBody(errorBody(message));
    }

    /** The body of an error: Ollama's errors say only a message. */
    public static String errorBody(String message) {
        return """
                {"error":"%s"}""".formatted(message);
    }

    public static ResponseDefinitionBuilder embeddings() {
        return aResponse().withHeader("Content-Type", "application/json").withBody(embeddingsBody());
    }

    /** The body of an answer to {@code /api/embed} with one embedding. */
    public static String embeddingsBody() {
        return """
                {"model":"%s","embeddings":[[0.1,0.2,0.3]],"total_duration":1000,"load_duration":10,\
                "prompt_eval_count":1}""".formatted(MODEL);
    }
}
