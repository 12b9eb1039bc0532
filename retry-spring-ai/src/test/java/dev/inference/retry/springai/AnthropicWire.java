package dev.inference.retry.springai;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bodies in Anthropic's wire format for {@code POST /v1/messages}: a message, a stream of message
 * events as server-sent events (each named in its {@code event} field), and error bodies.
 */
public final class AnthropicWire {

    public static final String PATH = "/v1/messages";

    private AnthropicWire() {
    }

    public static String message(String text) {
        return """
                {"id":"msg_1","type":"message","role":"assistant","model":"claude-test",\
                "content":[{"type":"text","text":"%s"}],"stop_reason":"end_turn","stop_sequence":null,\
                "usage":{"input_tokens":3,"output_tokens":1}}""".formatted(text);
    }

    /**
     * A stream of one text block with one delta per piece of text, as Anthropic sends it: a message
     * start, the block's start, a ping, the deltas, the block's stop, the message's delta and stop.
     */
    public static String stream(List<String> texts) {
        String deltas = texts.stream().map(AnthropicWire::delta).collect(Collectors.joining());
        return start() + emptyTextBlockStart() + ping() + deltas
                + event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
                + event("message_delta", """
                        {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},\
                        "usage":{"output_tokens":3}}""")
                + event("message_stop", "{\"type\":\"message_stop\"}");
    }

    public static String start() {
        return event("message_start", """
                {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",\
                "model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,\
                "usage":{"input_tokens":3,"output_tokens":1}}}""");
    }

    /** The start of a text block, which Anthropic opens empty and fills through deltas. */
    public static String emptyTextBlockStart() {
        return event("content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    }

    public static String ping() {
        return event("ping", "{\"type\": \"ping\"}");
    }

    public static String delta(String text) {
        return event("content_block_delta", """
                {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}""".formatted(text));
    }

    public static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

    public static String error(String type, String message) {
        return """
                {"type":"error","error":{"type":"%s","message":"%s"}}""".formatted(type, message);
    }

    /** The event that reports an error in a stream. */
    public static String errorEvent(String type, String message) {
        return event("error", error(type, message));
    }
}
