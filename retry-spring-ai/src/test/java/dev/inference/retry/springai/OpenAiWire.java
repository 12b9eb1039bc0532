package dev.inference.retry.springai;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bodies in OpenAI's wire format for {@code POST /v1/chat/completions}: a chat completion, a stream of
 * chat completion chunks as server-sent events ending with {@code data: [DONE]}, and error bodies; and
 * for {@code POST /v1/embeddings}: a list of one embedding.
 */
public final class OpenAiWire {

    public static final String PATH = "/v1/chat/completions";

    public static final String EMBEDDINGS = "/v1/embeddings";

    private OpenAiWire() {
    }

    public static String completion(String content) {
        return """
                {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
                "choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"stop",\
                "logprobs":null}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"""
            .formatted(content);
    }

    /** A stream of one chunk per piece of content, then a final chunk that says "stop", then [DONE]. */
    public static String stream(List<String> contents) {
        String chunks = contents.stream().map(OpenAiWire::chunk).map(OpenAiWire::event).collect(Collectors.joining());
        String stop = """
                {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",\
                "choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}""";
        return chunks + event(stop) + event("[DONE]");
    }

    public static String chunk(String content) {
        return """
                {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",\
                "choices":[{"index":0,"delta":{"role":"assistant","content":"%s"},"finish_reason":null}]}"""
            .formatted(content);
    }

    public static String event(String data) {
        return "data: " + data + "\n\n";
    }

    public static String error(String type, String message) {
        return """
                {"error":{"message":"%s","type":"%s","param":null,"code":null}}""".formatted(message, type);
    }

    /** OpenAI's answer to a request of an account whose quota is used up, as its 429 body. */
    public static String insufficientQuota(String message) {
        return """
                {"error":{"message":"%s","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"""
            .formatted(message);
    }

    /** A list of one embedding, as the answer to a request of one text. */
    public static String embeddings() {
        return """
                {"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],\
                "model":"text-embedding-ada-002","usage":{"prompt_tokens":1,"total_tokens":1}}""";
    }
}
