package dev.inference.sample.provider;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Just enough HTTP/1.1 for the provider: reads one request with a {@code Content-Length} body and
 * writes a response head. Every response is sent with {@code Connection: close}, so a connection
 * carries exactly one exchange and the provider decides how it ends.
 */
final class Wire {

    /** Far more than any client sends in its request line and headers. */
    private static final int HEAD_LIMIT = 64 * 1024;

    /** Far more than any chat request the sample makes. */
    private static final int BODY_LIMIT = 1024 * 1024;

    private Wire() {
    }

    /** A request that could not be read as HTTP/1.1: answered 400 with the reason. */
    static final class MalformedRequestException extends IOException {

        private static final long serialVersionUID = 1L;

        private final String reason;

        MalformedRequestException(String reason) {
            super(reason);
            this.reason = reason;
        }

        /** Returns what is wrong with the request, for the 400 answer's message. */
        String reason() {
            return this.reason;
        }
    }

    /**
     * Reads one request.
     *
     * @return the request, or {@code null} when the client closed the connection before sending one
     */
    static @Nullable RecordedRequest readRequest(InputStream in) throws IOException {
        String head = readHead(in);
        if (head == null) {
            return null;
        }
        // A limit of -1 keeps empty fields: a stray space makes the request line malformed, not shorter.
        String[] lines = head.split("\r\n", -1);
        String[] requestLine = lines[0].split(" ", -1);
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            throw new MalformedRequestException("not an HTTP/1.1 request line");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                throw new MalformedRequestException("malformed header line");
            }
            headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).strip());
        }
        if (headers.containsKey("transfer-encoding")) {
            throw new MalformedRequestException("only Content-Length bodies are supported");
        }
        int length = contentLength(headers.get("content-length"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new MalformedRequestException("the body ended before Content-Length bytes");
        }
        return new RecordedRequest(requestLine[0], requestLine[1], headers, body);
    }

    /** Writes a status line and headers, then the blank line; {@code Connection: close} is added. */
    static void writeHead(OutputStream out, int status, String reason, Map<String, String> headers)
            throws IOException {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Connection: close\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Writes a complete response with a body of known length. */
    static void writeResponse(OutputStream out, int status, String reason, Map<String, String> headers,
            String contentType, byte[] body) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Content-Type", contentType);
        all.put("Content-Length", Integer.toString(body.length));
        writeHead(out, status, reason, all);
        out.write(body);
        out.flush();
    }

    private static @Nullable String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new MalformedRequestException("the connection closed inside the request head");
            }
            head.write(b);
            if (head.size() > HEAD_LIMIT) {
                throw new MalformedRequestException("the request head is longer than " + HEAD_LIMIT + " bytes");
            }
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : ((b == '\r') ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        return text.substring(0, text.length() - 4);
    }

    private static int contentLength(@Nullable String value) throws MalformedRequestException {
        if (value == null) {
            return 0;
        }
        try {
            int length = Integer.parseInt(value);
            if (length >= 0 && length <= BODY_LIMIT) {
                return length;
            }
        }
        catch (NumberFormatException ex) {
            // reported below
        }
        throw new MalformedRequestException("Content-Length must be a number from 0 to " + BODY_LIMIT);
    }

    /** Reads a request body as JSON; empty when it is not JSON, which the caller answers as a bad request. */
    static Optional<JsonNode> readJson(JsonMapper mapper, byte[] body) {
        try {
            return Optional.of(mapper.readTree(body));
        }
        catch (JacksonException ex) {
            return Optional.empty();
        }
    }
}
