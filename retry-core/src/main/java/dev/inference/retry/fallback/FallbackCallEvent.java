package dev.inference.retry.fallback;

import java.util.Objects;
import java.util.Optional;

/**
 * The end of one call of a {@link FallbackChain}.
 *
 * @param chain the chain's name
 * @param answeredBy the member that answered, or empty when every member fell over
 */
public record FallbackCallEvent(String chain, Optional<String> answeredBy) {

    /**
     * Checks the fields.
     *
     * @param chain the chain's name
     * @param answeredBy the member that answered, or empty when every member fell over
     * @throws NullPointerException if an argument is {@code null}
     */
    public FallbackCallEvent {
        Objects.requireNonNull(chain, "chain must not be null");
        Objects.requireNonNull(answeredBy, "answeredBy must not be null");
    }
}
