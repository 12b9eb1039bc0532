package dev.inference.sample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The little HTTP/1.1 the tests' raw-socket servers speak: read one request with a
 * {@code Content-Length} body, write one response that closes the connection. Deliberately apart
 * from the embedded provider's own wire code, so that the tests do not check the product with
 * itself.
 */
public final class Http1 {

    private Http1() {
    }

    /**
     * A request as a test server read it, byte for byte.
     *
     * @param method the request method
     * @param path the request target
     * @param headers the headers, names lower-cased
     * @param body the body's bytes
     */
    public record Request(String method, String path, Map<String, String> headers, byte[] body) {

        /**
         * Returns a header's value.
         *
         * @param name the header's name, in any case
         * @return the value, or {@code null} when it was not sent
         */
        public @Nullable String header(String name) {
            return this.headers.get(name.toLowerCase(Locale.ROOT));
        }

        /**
         * Returns the body decoded as UTF-8.
         *
         * @return the body text
         */
        public String bodyText() {
            return new String(this.body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Reads one request.
     *
     * @param in the connection's input
     * @return the request, or {@code null} when the client closed before sending a byte
     * @throws IOException when the client closed inside the request, or the read failed
     */
    public static @Nullable Request readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new IOException("The client closed the connection inside the request head");
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : ((b == '\r') ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).strip());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("The client closed the connection inside the request body");
        }
        return new Request(requestLine[0], requestLine[1], headers, body);
    }

    /**
     * Renders a complete response that announces its body's length and closes the connection.
     *
     * @param status the status code
     * @param headers extra headers
     * @param body the body, sent as UTF-8
     * @return the response text
     */
    public static String response(int status, Map<String, String> headers, String body) {
        StringBuilder response = new StringBuilder("HTTP/1.1 " + status + " Status\r\n");
        headers.forEach((name, value) -> response.append(name).append(": ").append(value).append("\r\n"));
        response.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        response.append("Connection: close\r\n\r\n").append(body);
        return response.toString();
    }

    /**
     * Renders the JSON of a chat completion whose one choice says {@code content}.
     *
     * @param content the assistant's text, already JSON-safe
     * @return the completion JSON
     */
    public static String completionJson(String content) {
        return "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                + "{\"role\":\"assistant\",\"content\":\"" + content + "\"},\"finish_reason\":\"stop\"}]}";
    }
}
