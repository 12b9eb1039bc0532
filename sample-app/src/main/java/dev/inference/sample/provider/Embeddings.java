package dev.inference.sample.provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The provider's side of the embeddings JSON ({@code POST /v1/embeddings}): reads a request, writes a
 * list of embeddings in the shape OpenAI-compatible providers use. Each text's embedding is computed
 * from the text alone, so that tests know it: its length in characters, its number of words, and 1.
 */
final class Embeddings {

    private final JsonMapper mapper = JsonMapper.builder().build();

    /** What the provider needs from a request: the model, and the texts to embed. */
    record Request(String model, List<String> inputs) {
    }

    /**
     * Reads an embeddings request: its model, and its {@code input}, one text or an array of them.
     *
     * @return the request, or empty when the body is not such a request
     */
    Optional<Request> read(byte[] body) {
        Optional<JsonNode> read = Wire.readJson(this.mapper, body);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonNode request = read.get();
        Optional<String> model = request.path("model").stringValueOpt();
        JsonNode input = request.path("input");
        List<String> inputs = new ArrayList<>();
        if (input.isString()) {
            inputs.add(input.stringValue());
        }
        for (JsonNode text : input.isArray() ? input : List.<JsonNode>of()) {
            if (!text.isString()) {
                return Optional.empty();
            }
            inputs.add(text.stringValue());
        }
        return (model.isEmpty() || inputs.isEmpty()) ? Optional.empty() : Optional.of(new Request(model.get(), inputs));
    }

    /** The embedding of one text: its length, its number of words, and 1. */
    static List<Float> embedding(String text) {
        String words = text.strip();
        return List.of((float) text.length(), words.isEmpty() ? 0f : (float) words.split("\\s+").length, 1f);
    }

    byte[] list(Request request) {
        ObjectNode list = this.mapper.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (int i = 0; i < request.inputs().size(); i++) {
            ArrayNode vector = data.addObject().put("object", "embedding").put("index", i).putArray("embedding");
            embedding(request.inputs().get(i)).forEach(vector::add);
        }
        list.put("model", request.model());
        int texts = request.inputs().size();
        list.putObject("usage").put("prompt_tokens", texts).put("total_tokens", texts);
        return this.mapper.writeValueAsBytes(list);
    }
}
