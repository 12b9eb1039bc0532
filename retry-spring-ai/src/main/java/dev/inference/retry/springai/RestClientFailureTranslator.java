package dev.inference.retry.springai;

import java.time.Clock;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;

/**
 * Knows the exceptions of Spring's blocking HTTP clients ({@code RestClient}, {@code RestTemplate}): a
 * {@link RestClientResponseException} is the provider's error status, with the wait its
 * {@code retry-after-ms} or {@code Retry-After} header asks for; a {@link ResourceAccessException} is a
 * network failure. Loaded only when {@code spring-web} is on the class path.
 */
final class RestClientFailureTranslator implements ChatModelFailureTranslator {

    private final Clock clock;

    RestClientFailureTranslator(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof RestClientResponseException response) {
            HttpHeaders headers = response.getResponseHeaders();
            return TypedFailures.status(response.getStatusCode().value(),
                    (name) -> (headers != null) ? headers.getFirst(name) : null, this.clock, failure);
        }
        if (failure instanceof ResourceAccessException) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "RestClientFailureTranslator";
    }
}
