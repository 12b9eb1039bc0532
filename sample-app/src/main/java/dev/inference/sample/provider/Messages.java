package dev.inference.sample.provider;

import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The provider's side of Anthropic's Messages JSON ({@code POST /v1/messages}), so that the sample's
 * second chat model, the backup of a fallback chain, has a provider without a network: reads a
 * request, writes a message and the events of a streamed one. It answers as the chat completions do,
 * with an echo of the prompt, and never fails on purpose.
 */
final class Messages {

    private final JsonMapper mapper = JsonMapper.builder().build();

    /**
     * Reads a messages request: the model, the text of the last {@code user} message (a string, or the
     * first text block) and the stream flag.
     *
     * @return the request, or empty when the body is not such a request
     */
    Optional<Completions.Chat> read(byte[] body) {
        return Completions.readChat(this.mapper, body, (content) -> content.isArray()
                ? content.path(0).path("text").stringValueOpt() : content.stringValueOpt());
    }

    byte[] message(Completions.Chat chat, String id) {
        ObjectNode message = envelope(chat, id);
        message.putArray("content").addObject().put("type", "text").put("text", chat.answer());
        message.put("stop_reason", "end_turn");
        return this.mapper.writeValueAsBytes(message);
    }

    /** The first event of a stream: the message, empty. */
    String start(Completions.Chat chat, String id) {
        ObjectNode event = this.mapper.createObjectNode().put("type", "message_start");
        ObjectNode message = envelope(chat, id);
        message.putArray("content");
        message.putNull("stop_reason");
        event.set("message", message);
        return this.mapper.writeValueAsString(event);
    }

    String blockStart() {
        ObjectNode event = this.mapper.createObjectNode().put("type", "content_block_start").put("index", 0);
        event.putObject("content_block").put("type", "text").put("text", "");
        return this.mapper.writeValueAsString(event);
    }

    String delta(String text) {
        ObjectNode event = this.mapper.createObjectNode().put("type", "content_block_delta").put("index", 0);
        event.putObject("delta").put("type", "text_delta").put("text", text);
        return this.mapper.writeValueAsString(event);
    }

    String blockStop() {
        return this.mapper.writeValueAsString(this.mapper.createObjectNode().put("type", "content_block_stop").put("index", 0));
    }

    String messageDelta() {
        ObjectNode event = this.mapper.createObjectNode().put("type", "message_delta");
        event.putObject("delta").put("stop_reason", "end_turn").putNull("stop_sequence");
        event.putObject("usage").put("output_tokens", 1);
        return this.mapper.writeValueAsString(event);
    }

    String stop() {
        return this.mapper.writeValueAsString(this.mapper.createObjectNode().put("type", "message_stop"));
    }

    private ObjectNode envelope(Completions.Chat chat, String id) {
        ObjectNode message = this.mapper.createObjectNode()
            .put("id", id)
            .put("type", "message")
            .put("role", "assistant")
            .put("model", chat.model());
        message.putNull("stop_sequence");
        message.putObject("usage").put("input_tokens", 1).put("output_tokens", 1);
        return message;
    }
}
