package dev.inference.retry.springai.openai;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.JsonField;
import com.openai.core.JsonMissing;
import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpResponse;
import com.openai.errors.InternalServerException;
import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.errors.UnexpectedStatusCodeException;
import com.openai.models.ErrorObject;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ProviderErrorTypes;
import dev.inference.failure.RateLimitHeaders;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.springai.exchange.StainlessFailures;
import dev.inference.retry.springai.exchange.TypedFailures;
import dev.inference.retry.springai.proxy.HttpClientFailureTranslator;
import java.io.InputStream;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns what an OpenAI SDK exchange produced into the failures the retry decisions classify, in the
 * form the SDK itself would have thrown.
 *
 * <p>Each failure is the SDK's own exception class, built with the SDK's public builders from the
 * same status, headers and error body its error handler reads (OpenAI Java SDK 4.49.0), with the
 * core's typed failure ({@link HttpStatusException} or {@link NetworkException}) as its cause. The
 * typed cause is what {@link dev.inference.retry.Classification} reads; the SDK class on top is what
 * the caller finds as the cause of an {@link dev.inference.retry.ExhaustedException}. A 429 whose error
 * says the account's quota is used up ({@code insufficient_quota}) has a
 * {@link dev.inference.failure.QuotaExceededException} beneath instead, which ends the call at once.
 */
final class OpenAiFailures extends StainlessFailures<HttpResponse, OpenAIIoException> {

    OpenAiFailures() {
        super(OpenAIIoException.class, OpenAIIoException::new, RateLimitHeaders.OPENAI);
    }

    private static final TypeReference<JsonField<ErrorObject>> ERROR_OBJECT = new TypeReference<>() {
    };

    /**
     * Makes the translator of the SDK's exceptions, for a chat model on the SDK that the proxy retries:
     * {@link OpenAIServiceException} with its status and headers, and {@link OpenAIIoException}.
     *
     * @param clock what "now" is for a {@code Retry-After} date
     * @return the translator
     */
    static ChatModelFailureTranslator translator(Clock clock) {
        return HttpClientFailureTranslator.of("OpenAI SDK", OpenAIServiceException.class, OpenAIServiceException::statusCode,
                (failure, name) -> TypedFailures.first(failure.headers().values(name)), OpenAIIoException.class, clock,
                (failure) -> ProviderErrorTypes.quotaExceeded(failure.statusCode(), errorField(failure::type),
                        errorField(failure::code), failure.getMessage()));
    }

    /**
     * Reads a field of an error body, which the SDK refuses to read (it throws) when the body lacks a
     * field it requires, such as an error without a {@code type}: such a body has no quota to tell of.
     */
    private static @Nullable String errorField(Supplier<Optional<String>> field) {
        try {
            return field.get().orElse(null);
        }
        catch (OpenAIInvalidDataException incomplete) {
            return null;
        }
    }

    @Override
    public RuntimeException statusException(HttpResponse response, HttpStatusException typed) {
        return retryableStatusException(response, typed);
    }

    @Override
    public Optional<RuntimeException> inBandException(FirstSseEvent.Event event, HttpResponse response) {
        return inBandFailure(event.data(), response).map(RuntimeException.class::cast);
    }

    /**
     * Builds the exception the SDK throws for a retryable status: {@link RateLimitException} for 429,
     * {@link InternalServerException} for 500 to 599, {@link UnexpectedStatusCodeException} for any
     * other (408). Reads and consumes the response body; the caller closes the response.
     *
     * @param response the response whose status {@code typed} describes
     * @param typed the typed failure, attached as the cause
     * @return the SDK's exception for the response
     */
    static OpenAIServiceException retryableStatusException(HttpResponse response, HttpStatusException typed) {
        JsonNode body = readBody(response);
        JsonNode errorNode = (body != null) ? body.get("error") : null;
        JsonField<ErrorObject> error = errorBody(body);
        Headers headers = response.headers();
        // A used-up quota comes as a 429 too, but no wait mends it: its typed failure ends the call.
        Throwable cause = (errorNode == null) ? typed
                : ProviderErrorTypes.quotaExceeded(typed.status(), text(errorNode, "type"), text(errorNode, "code"),
                        text(errorNode, "message")).map(Throwable.class::cast).orElse(typed);
        return TypedFailures.byStatus(typed.status(),
                () -> RateLimitException.builder().headers(headers).error(error).cause(cause).build(),
                (status) -> InternalServerException.builder().statusCode(status).headers(headers).error(error)
                    .cause(cause).build(),
                (status) -> UnexpectedStatusCodeException.builder().statusCode(status).headers(headers).error(error)
                    .cause(cause).build());
    }

    /**
     * Tells whether a stream event comes before the content and says nothing of the outcome: a chunk
     * whose every choice's delta carries no content yet, as OpenAI opens a stream
     * ({@code "delta":{"role":"assistant","content":""}}): only a role, and an empty or null
     * {@code content} or {@code refusal}, with no finish reason and no error. A chunk with content, a
     * tool call, a finish reason or no choices is not.
     *
     * @param event the event
     * @return {@code true} for such an event
     */
    @Override
    public boolean isPreamble(FirstSseEvent.Event event) {
        JsonNode chunk;
        try {
            chunk = ObjectMappers.jsonMapper().readTree(event.data());
        }
        catch (Exception notJson) {
            return false;
        }
        JsonNode choices = (chunk != null && chunk.isObject() && !chunk.has("error")) ? chunk.get("choices") : null;
        if (choices == null || !choices.isArray() || choices.isEmpty()) {
            return false;
        }
        for (JsonNode choice : choices) {
            JsonNode finish = choice.get("finish_reason");
            JsonNode delta = choice.get("delta");
            if ((finish != null && !finish.isNull()) || delta == null || !delta.isObject() || carriesContent(delta)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a delta carries anything but its role and empty text. */
    private static boolean carriesContent(JsonNode delta) {
        for (var field : delta.properties()) {
            JsonNode value = field.getValue();
            boolean empty = value.isNull() || (value.isTextual() && value.asText().isEmpty());
            if (!field.getKey().equals("role") && !empty) {
                return true;
            }
        }
        return false;
    }

    /**
     * Classifies the data of a stream's first event: an {@code error} object there is the provider's
     * in-band failure, sent before any content.
     *
     * @param data the first event's data, its lines joined with {@code \n}
     * @param response the response the event came in, for the SDK exception's status and headers
     * @return the {@link SseException} the SDK would throw for that event, caused by a retryable
     *     {@link HttpStatusException} when the error's type or code is transient (rate limit: 429, server
     *     error: 500, overloaded: 503) and with no cause when it is permanent; or empty when the event is
     *     not an error
     */
    static Optional<SseException> inBandFailure(String data, HttpResponse response) {
        if (data.startsWith("[DONE]") || !mayNameError(data)) {
            return Optional.empty();
        }
        JsonNode event;
        try {
            event = ObjectMappers.jsonMapper().readTree(data);
        }
        catch (Exception notJson) {
            return Optional.empty();
        }
        // As the SDK does: any "error" member, even null, makes the event an error.
        JsonNode error = (event != null) ? event.get("error") : null;
        if (error == null) {
            return Optional.empty();
        }
        HttpStatusException typed = TypedFailures.inBand(text(error, "type"), text(error, "code"));
        return Optional.of(SseException.builder()
            .statusCode(response.statusCode())
            .headers(response.headers())
            .error(errorObject(error))
            .cause(typed)
            .build());
    }

    /**
     * Whether a JSON text may have a member named {@code error}: it spells {@code "error"}, or has an
     * escape by which a name could spell it. A text that may not is no error, and needs no parse: a
     * content chunk, the common case, is told so by a scan.
     */
    private static boolean mayNameError(String data) {
        return data.contains("\"error\"") || data.contains("\\u");
    }

    /** Reads and consumes an error body, or returns {@code null} when it is not JSON. */
    private static @Nullable JsonNode readBody(HttpResponse response) {
        try (InputStream body = response.body()) {
            return ObjectMappers.jsonMapper().readValue(body, JsonNode.class);
        }
        catch (Exception unreadable) {
            return null;
        }
    }

    /** Reads an error body as the SDK's error handler does: its "error" member, else the whole body. */
    @SuppressWarnings({ "unchecked", "rawtypes" })
    private static JsonField<ErrorObject> errorBody(@Nullable JsonNode body) {
        if (body == null) {
            return (JsonField) JsonMissing.of();
        }
        JsonNode error = body.get("error");
        return (error != null) ? errorObject(error) : (JsonField) JsonValue.fromJsonNode(body);
    }

    @SuppressWarnings({ "unchecked", "rawtypes" })
    private static JsonField<ErrorObject> errorObject(JsonNode error) {
        try {
            return ObjectMappers.jsonMapper().readerFor(ERROR_OBJECT).readValue(error);
        }
        catch (Exception unreadable) {
            return (JsonField) JsonMissing.of();
        }
    }

    private static @Nullable String text(JsonNode node, String member) {
        JsonNode value = node.get(member);
        return (value != null && value.isTextual()) ? value.asText() : null;
    }
}
