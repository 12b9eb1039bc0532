package dev.inference.client;

import java.util.Map;

/**
 * Supplies the credentials for one attempt of a call.
 *
 * <p>A transport calls {@link #authorize()} once per attempt, right before sending, so an
 * implementation that refreshes expiring tokens does so here, never in a retry decorator.
 * Implementations must be safe for concurrent use.
 */
@FunctionalInterface
public interface Authorizer {

    /**
     * Returns the credentials for one attempt, typically HTTP headers such as
     * {@code Authorization}.
     *
     * @return the headers to add, never {@code null}; empty for none
     * @throws RuntimeException if credentials cannot be obtained; the attempt fails with it
     */
    Map<String, String> authorize();

    /**
     * Returns an authorizer that supplies no credentials.
     *
     * @return the authorizer that always returns an empty map
     */
    static Authorizer none() {
        return Map::of;
    }
}
