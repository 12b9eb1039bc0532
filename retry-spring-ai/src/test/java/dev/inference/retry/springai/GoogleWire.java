package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Bodies in Gemini's wire format (the Gemini API, {@code v1beta}): {@code POST
 * /v1beta/models/{model}:generateContent} answered with one {@code GenerateContentResponse}, {@code POST
 * …:streamGenerateContent?alt=sse} with one server-sent event per response, and error bodies, with a
 * {@code google.rpc.RetryInfo} when they ask for a wait.
 */
public final class GoogleWire {

    public static final String MODEL = "gemini-2.5-flash";

    public static final String GENERATE = "/v1beta/models/" + MODEL + ":generateContent";

    public static final String STREAM = "/v1beta/models/" + MODEL + ":streamGenerateContent?alt=sse";

    private GoogleWire() {
    }

    public static ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(response(content, true));
    }

    /** A stream of one event per piece of content, the last one saying "STOP". */
    public static ResponseDefinitionBuilder stream(String... contents) {
        List<String> pieces = List.of(contents);
        String events = pieces.stream()
            .map((content) -> event(response(content, content == pieces.get(pieces.size() - 1))))
            .collect(Collectors.joining());
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(events);
    }

    public static String event(String data) {
        return "data: " + data + "\r\n\r\n";
    }

    /** One {@code GenerateContentResponse}, with the {@code modelVersion} Spring AI's model needs. */
    public static String response(String content, boolean last) {
        return """
                {"candidates":[{"content":{"parts":[{"text":"%s"}],"role":"model"},%s"index":0}],\
                "usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},\
                "modelVersion":"%s"}""".formatted(content, last ? "\"finishReason\":\"STOP\"," : "", MODEL);
    }

    /** An error answer with Gemini's error body. */
    public static ResponseDefinitionBuilder error(int code, String status, String message) {
        return aResponse().withStatus(code)
            .withHeader("Content-Type", "application/json")
            .withBody(errorBody(code, status, message));
    }

    /** An error answer with Gemini's error body and a {@code RetryInfo} asking for this delay. */
    public static ResponseDefinitionBuilder error(int code, String status, String message, String retryDelay) {
        return aResponse().withStatus(code)
            .withHeader("Content-Type", "application/json")
            .withBody(errorBody(code, status, message, retryDelay));
    }

    public static String errorBody(int code, String status, String message) {
        return """
                {"error":{"code":%d,"message":"%s","status":"%s"}}""".formatted(code, message, status);
    }

    public static String errorBody(int code, String status, String message, String retryDelay) {
        return """
                {"error":{"code":%d,"message":"%s","status":"%s","details":[\
                {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"},\
                {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%s"}]}}"""
            .formatted(code, message, status, retryDelay);
    }
}
