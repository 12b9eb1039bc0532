package dev.inference.sample.provider;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * A request as the {@link FlakyProvider} received it, byte for byte.
 */
public final class RecordedRequest {

    private final String method;

    private final String path;

    private final Map<String, String> headers;

    private final byte[] body;

    RecordedRequest(String method, String path, Map<String, String> headers, byte[] body) {
        this.method = method;
        this.path = path;
        this.headers = Map.copyOf(headers);
        this.body = body.clone();
    }

    /**
     * Returns the request method.
     *
     * @return the method, such as {@code POST}
     */
    public String method() {
        return this.method;
    }

    /**
     * Returns the request target as sent.
     *
     * @return the path, such as {@code /v1/chat/completions}
     */
    public String path() {
        return this.path;
    }

    /**
     * Returns a header's value.
     *
     * @param name the header's name, in any case
     * @return the value (the last one when the header was repeated), or empty when it was not sent
     */
    public Optional<String> header(String name) {
        return Optional.ofNullable(this.headers.get(name.toLowerCase(java.util.Locale.ROOT)));
    }

    /**
     * Returns the body's bytes.
     *
     * @return a copy of the body
     */
    public byte[] body() {
        return this.body.clone();
    }

    /**
     * Returns the body decoded as UTF-8.
     *
     * @return the body text
     */
    public String bodyText() {
        return new String(this.body, StandardCharsets.UTF_8);
    }

    /** Describes the request without its headers, which may hold credentials. */
    @Override
    public String toString() {
        return "RecordedRequest[" + this.method + " " + this.path + ", body=" + this.body.length + " bytes]";
    }
}
