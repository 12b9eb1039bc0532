package dev.inference.retry.springai.anthropic;

import com.anthropic.core.JsonMissing;
import com.anthropic.core.JsonValue;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.InternalServerException;
import com.anthropic.errors.RateLimitException;
import com.anthropic.errors.SseException;
import com.anthropic.errors.UnexpectedStatusCodeException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.RateLimitHeaders;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.springai.exchange.StainlessFailures;
import dev.inference.retry.springai.exchange.TypedFailures;
import dev.inference.retry.springai.proxy.HttpClientFailureTranslator;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns what an Anthropic SDK exchange produced into the failures the retry decisions classify, in the
 * form the SDK itself would have thrown.
 *
 * <p>Each failure is the SDK's own exception class, built with the SDK's public builders from the same
 * status, headers and body its error handler reads (Anthropic Java SDK 2.52.0: the whole body, such as
 * {@code {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}), with the core's
 * typed failure ({@link HttpStatusException} or {@link NetworkException}) as its cause. The typed
 * cause is what {@link dev.inference.retry.Classification} reads; the SDK class on top is what the
 * caller finds as the cause of an {@link dev.inference.retry.ExhaustedException}.
 */
final class AnthropicFailures extends StainlessFailures<HttpResponse, AnthropicIoException> {

    AnthropicFailures() {
        super(AnthropicIoException.class, AnthropicIoException::new, RateLimitHeaders.ANTHROPIC);
    }

    /** The event that reports a failure in a stream; the SDK throws an {@link SseException} for it. */
    private static final String ERROR_EVENT = "error";

    /** Events that come before a stream's content and say nothing of its outcome. */
    private static final Set<String> PREAMBLE = Set.of("message_start", "ping");

    /** The event that opens a content block: preamble while the block it opens is still empty. */
    private static final String CONTENT_BLOCK_START = "content_block_start";

    /**
     * Makes the translator of the SDK's exceptions, for a chat model on the SDK that the proxy retries:
     * {@link AnthropicServiceException} with its status and headers, and {@link AnthropicIoException}.
     *
     * @param clock what "now" is for a {@code Retry-After} date
     * @return the translator
     */
    static ChatModelFailureTranslator translator(Clock clock) {
        return HttpClientFailureTranslator.of("Anthropic SDK", AnthropicServiceException.class, AnthropicServiceException::statusCode,
                (failure, name) -> TypedFailures.first(failure.headers().values(name)), AnthropicIoException.class, clock);
    }

    @Override
    public RuntimeException statusException(HttpResponse response, HttpStatusException typed) {
        return retryableStatusException(response, typed);
    }

    @Override
    public Optional<RuntimeException> inBandException(FirstSseEvent.Event event, HttpResponse response) {
        return inBandFailure(event, response.statusCode(), response.headers()).map(RuntimeException.class::cast);
    }

    /**
     * Builds the exception the SDK throws for a retryable status: {@link RateLimitException} for 429,
     * {@link InternalServerException} for 500 to 599 (Anthropic's 529 "overloaded" among them),
     * {@link UnexpectedStatusCodeException} for any other (408). Reads and consumes the response body;
     * the caller closes the response.
     *
     * @param response the response whose status {@code typed} describes
     * @param typed the typed failure, attached as the cause
     * @return the SDK's exception for the response
     */
    static AnthropicServiceException retryableStatusException(HttpResponse response, HttpStatusException typed) {
        JsonValue body = errorBody(response);
        Headers headers = response.headers();
        return TypedFailures.byStatus(typed.status(),
                () -> RateLimitException.builder().headers(headers).body(body).cause(typed).build(),
                (status) -> InternalServerException.builder().statusCode(status).headers(headers).body(body)
                    .cause(typed).build(),
                (status) -> UnexpectedStatusCodeException.builder().statusCode(status).headers(headers).body(body)
                    .cause(typed).build());
    }

    /**
     * Tells whether a stream event comes before the content and says nothing of the outcome:
     * {@code message_start} (the message's id and model, with no content yet), {@code ping}, and a
     * {@code content_block_start} that opens a text or thinking block with nothing in it yet, as
     * Anthropic opens every such block ({@code "content_block":{"type":"text","text":""}}). A block that
     * starts with content, or a tool use (the model's decision to call a tool), is content.
     *
     * @param event the event
     * @return {@code true} for such an event
     */
    @Override
    public boolean isPreamble(FirstSseEvent.Event event) {
        if (event.name() != null && PREAMBLE.contains(event.name())) {
            return true;
        }
        return CONTENT_BLOCK_START.equals(event.name()) && opensAnEmptyBlock(event.data());
    }

    /**
     * Whether a {@code content_block_start}'s block is a text or thinking block with no content yet.
     * Reads the event's JSON with the SDK's parser and no tree (this runs on every stream, before its
     * first chunk), giving the answer of its tree: the last of repeated members counts, members may
     * come in any order, and a document that is not JSON opens no empty block.
     */
    private static boolean opensAnEmptyBlock(String data) {
        try (JsonParser parser = ObjectMappers.jsonMapper().createParser(data)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            boolean empty = false;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                boolean block = "content_block".equals(parser.currentName());
                JsonToken value = parser.nextToken();
                if (block) {
                    empty = value == JsonToken.START_OBJECT && isEmptyBlock(parser);
                }
                else {
                    parser.skipChildren();
                }
            }
            return empty;
        }
        catch (IOException | RuntimeException notJson) {
            return false;
        }
    }

    /**
     * Reads a block, from its start to its end: whether it is one of those that open empty and fill
     * through deltas (text and thinking, each holding its content under its type's name) with no content.
     */
    private static boolean isEmptyBlock(JsonParser parser) throws IOException {
        // Each member's last value, or null where it was not a string: every member is read, in any order.
        @Nullable String type = null;
        @Nullable String text = null;
        @Nullable String thinking = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            @Nullable String value = (parser.nextToken() == JsonToken.VALUE_STRING) ? parser.getText() : null;
            switch (name) {
                case "type" -> type = value;
                case "text" -> text = value;
                case "thinking" -> thinking = value;
                default -> {
                }
            }
            parser.skipChildren();
        }
        @Nullable String content = "text".equals(type) ? text : "thinking".equals(type) ? thinking : null;
        return content != null && content.isEmpty();
    }

    /**
     * Classifies a stream's first event that is not preamble: an {@code error} event there is the
     * provider's in-band failure, sent before any content.
     *
     * @param event the event
     * @param status the status of the response the event came in, for the SDK exception
     * @param headers the headers of that response, for the SDK exception
     * @return the {@link SseException} the SDK throws for that event, caused by a retryable
     *     {@link HttpStatusException} when the error's type is transient ({@code overloaded_error}: 503,
     *     {@code api_error}: 500, {@code rate_limit_error}: 429) and with no cause when it is permanent;
     *     or empty when the event is not an error
     */
    static Optional<SseException> inBandFailure(FirstSseEvent.Event event, int status, Headers headers) {
        if (!ERROR_EVENT.equals(event.name())) {
            return Optional.empty();
        }
        JsonNode data = readTree(event.data());
        JsonNode error = (data != null) ? data.get("error") : null;
        String type = (error != null && error.get("type") != null && error.get("type").isTextual())
                ? error.get("type").asText() : null;
        return Optional.of(SseException.builder()
            .statusCode(status)
            .headers(headers)
            .body((data != null) ? JsonValue.fromJsonNode(data) : JsonMissing.of())
            .cause(TypedFailures.inBand(type, null))
            .build());
    }

    /** Reads an error body as the SDK's error handler does: the whole body, or missing if it is not JSON. */
    private static JsonValue errorBody(HttpResponse response) {
        try (InputStream body = response.body()) {
            return ObjectMappers.jsonMapper().readValue(body, JsonValue.class);
        }
        catch (Exception unreadable) {
            return JsonMissing.of();
        }
    }

    private static @Nullable JsonNode readTree(String data) {
        try {
            return ObjectMappers.jsonMapper().readTree(data);
        }
        catch (Exception notJson) {
            return null;
        }
    }
}
