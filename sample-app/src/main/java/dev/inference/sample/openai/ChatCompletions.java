package dev.inference.sample.openai;

import dev.inference.client.InferenceRequest;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.QuotaExceededException;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of the chat-completions protocol: the request body, the unary response, one streamed
 * chunk and the error object. Bodies that do not have the expected shape are reported as
 * {@link NetworkException}s: a provider that answers 200 with a garbled body failed in transit as
 * far as the caller can tell. A body or chunk that holds an error object, {@code {"error": {...}}},
 * is the provider's answer instead, and is reported as a {@link ProviderErrorException}.
 */
final class ChatCompletions {

    /** Error codes are identifiers such as {@code rate_limit_exceeded}; anything else stays out of messages. */
    private static final Pattern ERROR_CODE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final JsonMapper mapper = JsonMapper.builder().build();

    /**
     * Writes the request body: {@code {"model":..., "messages":[{"role":"user","content":...}],
     * "stream":...}}. The same request always gives the same bytes.
     */
    byte[] requestBody(InferenceRequest request, boolean stream) {
        ObjectNode body = this.mapper.createObjectNode();
        body.put("model", request.model());
        body.putArray("messages").addObject().put("role", "user").put("content", request.input());
        body.put("stream", stream);
        return this.mapper.writeValueAsBytes(body);
    }

    /** Reads {@code choices[0].message.content} from a unary response. */
    String content(byte[] body) {
        JsonNode response = parse(body, "The provider's response is not valid JSON");
        throwProviderError(response);
        return response.path("choices").path(0).path("message").path("content").stringValueOpt()
                .orElseThrow(() -> new NetworkException(
                        "The provider's response has no text at choices[0].message.content", null));
    }

    /**
     * Reads the text of {@code choices[0].delta.content} from one streamed chunk.
     *
     * @return the text, or empty for a chunk that carries none (the role announcement, the finish
     *     reason, usage) or only an empty string
     */
    Optional<String> delta(String data) {
        JsonNode chunk = parse(data, "The provider sent a stream chunk that is not valid JSON");
        throwProviderError(chunk);
        JsonNode choices = chunk.path("choices");
        if (!choices.isArray()) {
            throw new NetworkException("The provider sent a stream chunk without a choices array", null);
        }
        return choices.path(0).path("delta").path("content").stringValueOpt().filter((text) -> !text.isEmpty());
    }

    /**
     * Throws the provider's error if a 200 body or chunk holds an error object; an {@code error}
     * member that is not an object is left to fail as a malformed body.
     */
    private static void throwProviderError(JsonNode body) {
        JsonNode error = body.path("error");
        if (!error.isObject()) {
            return;
        }
        JsonNode status = error.path("status");
        JsonNode code = error.path("code");
        Integer carried = status.isInt() ? Integer.valueOf(status.intValue())
                : code.isInt() ? Integer.valueOf(code.intValue()) : null;
        throw ProviderErrorException.classify(carried, code.stringValueOpt().orElse(null),
                error.path("type").stringValueOpt().orElse(null), error.path("message").stringValueOpt().orElse(null));
    }

    /** Reads {@code error.code}, or else {@code error.type}, from an error body, if it is an identifier. */
    Optional<String> errorCode(byte[] body) {
        JsonNode error;
        try {
            error = this.mapper.readTree(body).path("error");
        }
        catch (JacksonException ex) {
            return Optional.empty();
        }
        return error.path("code").stringValueOpt().or(() -> error.path("type").stringValueOpt())
                .filter((code) -> ERROR_CODE.matcher(code).matches());
    }

    /**
     * Reads an error body that says the account's quota is used up, as
     * {@link ProviderErrorTypes#quotaExceeded} decides by its {@code type} or {@code code}.
     *
     * @return the failure, whose message is the provider's own (a quota's message quotes no request),
     *     or empty for any other body
     */
    Optional<QuotaExceededException> quotaExceeded(int status, byte[] body) {
        JsonNode error;
        try {
            error = this.mapper.readTree(body).path("error");
        }
        catch (JacksonException ex) {
            return Optional.empty();
        }
        return ProviderErrorTypes.quotaExceeded(status, error.path("type").stringValueOpt().orElse(null),
                error.path("code").stringValueOpt().orElse(null), error.path("message").stringValueOpt().orElse(null));
    }

    private JsonNode parse(byte[] body, String failure) {
        try {
            return this.mapper.readTree(body);
        }
        catch (JacksonException ex) {
            throw new NetworkException(failure, ex);
        }
    }

    private JsonNode parse(String body, String failure) {
        try {
            return this.mapper.readTree(body);
        }
        catch (JacksonException ex) {
            throw new NetworkException(failure, ex);
        }
    }
}
