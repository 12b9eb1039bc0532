package dev.inference.sample;

import dev.inference.client.Authorizer;
import java.util.Map;

/**
 * Supplies a fixed API key as {@code Authorization: Bearer <key>}, the scheme OpenAI-compatible
 * providers use. A provider with expiring tokens would fetch or refresh one here instead, since the
 * transport asks once per attempt.
 */
final class BearerTokenAuthorizer implements Authorizer {

    private final Map<String, String> headers;

    BearerTokenAuthorizer(String apiKey) {
        this.headers = Map.of("Authorization", "Bearer " + apiKey);
    }

    @Override
    public Map<String, String> authorize() {
        return this.headers;
    }

    /** Names the scheme only: the key must never reach a log. */
    @Override
    public String toString() {
        return "BearerTokenAuthorizer[key hidden]";
    }
}
