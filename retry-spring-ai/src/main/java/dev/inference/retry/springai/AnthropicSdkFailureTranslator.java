package dev.inference.retry.springai;

import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import java.time.Clock;
import java.util.Optional;

/**
 * Knows the exceptions of the Anthropic Java SDK: an {@link AnthropicServiceException} with an error
 * status (400 or more; 529 is Anthropic's "overloaded") is the provider's error status, with the wait
 * its {@code retry-after-ms} or {@code Retry-After} header asks for; an {@link AnthropicIoException} is
 * a network failure. An error the provider sent inside a stream (the SDK's {@code SseException}, whose
 * status is the stream's own) is not known here. Loaded only when the SDK is on the class path.
 */
final class AnthropicSdkFailureTranslator implements ChatModelFailureTranslator {

    private final Clock clock;

    AnthropicSdkFailureTranslator(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof AnthropicServiceException service && service.statusCode() >= 400) {
            return TypedFailures.status(service.statusCode(), (name) -> TypedFailures.first(service.headers().values(name)),
                    this.clock, failure);
        }
        if (failure instanceof AnthropicIoException) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "AnthropicSdkFailureTranslator";
    }
}
