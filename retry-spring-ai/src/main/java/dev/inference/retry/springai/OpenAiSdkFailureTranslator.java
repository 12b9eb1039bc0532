package dev.inference.retry.springai;

import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import java.time.Clock;
import java.util.Optional;

/**
 * Knows the exceptions of the OpenAI Java SDK: an {@link OpenAIServiceException} with an error status
 * (400 or more) is the provider's error status, with the wait its {@code retry-after-ms} or
 * {@code Retry-After} header asks for; an {@link OpenAIIoException} is a network failure. An error the
 * provider sent inside a stream (the SDK's {@code SseException}, whose status is the stream's own) is
 * not known here. Loaded only when the SDK is on the class path.
 */
final class OpenAiSdkFailureTranslator implements ChatModelFailureTranslator {

    private final Clock clock;

    OpenAiSdkFailureTranslator(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof OpenAIServiceException service && service.statusCode() >= 400) {
            return TypedFailures.status(service.statusCode(), (name) -> TypedFailures.first(service.headers().values(name)),
                    this.clock, failure);
        }
        if (failure instanceof OpenAIIoException) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "OpenAiSdkFailureTranslator";
    }
}
