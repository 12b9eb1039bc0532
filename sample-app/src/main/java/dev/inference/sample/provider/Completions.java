package dev.inference.sample.provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The provider's side of the chat-completions JSON: reads a request, writes completions, stream
 * chunks and error objects in the shape OpenAI-compatible providers use.
 */
final class Completions {

    private final JsonMapper mapper = JsonMapper.builder().build();

    /** What the provider needs from a request. */
    record Chat(String model, String prompt, boolean stream) {

        /** The provider's answer: a deterministic echo, so tests know every chunk. */
        String answer() {
            return "You said: " + this.prompt;
        }

        /** The answer in word-sized chunks, each keeping its trailing white space. */
        List<String> chunks() {
            List<String> chunks = new ArrayList<>();
            String answer = answer();
            int start = 0;
            for (int i = 1; i <= answer.length(); i++) {
                if (i == answer.length() || (Character.isWhitespace(answer.charAt(i - 1))
                        && !Character.isWhitespace(answer.charAt(i)))) {
                    chunks.add(answer.substring(start, i));
                    start = i;
                }
            }
            return chunks;
        }
    }

    /**
     * Reads a chat request: the model, the content of the last {@code user} message and the stream
     * flag.
     *
     * @return the request, or empty when the body is not such a request
     */
    Optional<Chat> readChat(byte[] body) {
        return readChat(this.mapper, body, JsonNode::stringValueOpt);
    }

    /**
     * Reads a chat request of either wire format: the model, the text of the last {@code user}
     * message, as {@code text} reads it from the message's {@code content}, and the stream flag.
     */
    static Optional<Chat> readChat(JsonMapper mapper, byte[] body, Function<JsonNode, Optional<String>> text) {
        Optional<JsonNode> read = Wire.readJson(mapper, body);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonNode request = read.get();
        Optional<String> model = request.path("model").stringValueOpt();
        Optional<String> prompt = Optional.empty();
        for (JsonNode message : request.path("messages")) {
            if (message.path("role").stringValueOpt().filter("user"::equals).isPresent()) {
                prompt = text.apply(message.path("content"));
            }
        }
        if (model.isEmpty() || prompt.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Chat(model.get(), prompt.get(), request.path("stream").asBoolean(false)));
    }

    byte[] completion(Chat chat, String id) {
        ObjectNode completion = envelope(id, "chat.completion", chat.model());
        ObjectNode choice = completion.putArray("choices").addObject().put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", chat.answer());
        choice.put("finish_reason", "stop");
        return this.mapper.writeValueAsBytes(completion);
    }

    /** The first chunk of a stream: the role, with empty content, as OpenAI sends it. */
    String roleChunk(Chat chat, String id) {
        ObjectNode chunk = envelope(id, "chat.completion.chunk", chat.model());
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.putObject("delta").put("role", "assistant").put("content", "");
        choice.putNull("finish_reason");
        return this.mapper.writeValueAsString(chunk);
    }

    String contentChunk(Chat chat, String id, String text) {
        ObjectNode chunk = envelope(id, "chat.completion.chunk", chat.model());
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.putObject("delta").put("content", text);
        choice.putNull("finish_reason");
        return this.mapper.writeValueAsString(chunk);
    }

    String finishChunk(Chat chat, String id) {
        ObjectNode chunk = envelope(id, "chat.completion.chunk", chat.model());
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.putObject("delta");
        choice.put("finish_reason", "stop");
        return this.mapper.writeValueAsString(chunk);
    }

    byte[] error(String message, String type, String code) {
        ObjectNode body = this.mapper.createObjectNode();
        body.putObject("error").put("message", message).put("type", type).put("code", code);
        return this.mapper.writeValueAsBytes(body);
    }

    private ObjectNode envelope(String id, String object, String model) {
        ObjectNode node = this.mapper.createObjectNode();
        node.put("id", id).put("object", object).put("model", model);
        return node;
    }
}
