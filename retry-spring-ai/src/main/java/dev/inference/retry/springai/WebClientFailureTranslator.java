package dev.inference.retry.springai;

import java.time.Clock;
import java.util.Optional;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Knows the exceptions of Spring's reactive HTTP client: a {@link WebClientResponseException} is the
 * provider's error status, with the wait its {@code retry-after-ms} or {@code Retry-After} header asks
 * for; a {@link WebClientRequestException} is a network failure. Loaded only when {@code spring-webflux}
 * is on the class path.
 */
final class WebClientFailureTranslator implements ChatModelFailureTranslator {

    private final Clock clock;

    WebClientFailureTranslator(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof WebClientResponseException response) {
            return TypedFailures.status(response.getStatusCode().value(), response.getHeaders()::getFirst, this.clock,
                    failure);
        }
        if (failure instanceof WebClientRequestException) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "WebClientFailureTranslator";
    }
}
