package dev.inference.retry.springai;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads a server-sent event stream up to the end of its first event, keeping every byte read so that
 * the stream can be handed on whole.
 *
 * <p>Events are recognised as the HTML standard's event-stream interpretation (and the OpenAI SDK's
 * parser) recognises them: lines end with {@code \n} (a {@code \r} before it is dropped), a blank line
 * dispatches the event if it has at least one {@code data} line, lines starting with {@code :} are
 * comments. Reading stops at the first dispatched event, at the end of the stream, or once
 * {@code limit} bytes were read without one; it reads as the bytes arrive and never waits for more than
 * the first event needs. Not thread-safe.
 */
final class FirstSseEvent {

    /** Enough for any first event a provider sends; past this, the stream is content, not an error. */
    static final int DEFAULT_LIMIT = 64 * 1024;

    private final byte[] read;

    private final @Nullable String data;

    private FirstSseEvent(byte[] read, @Nullable String data) {
        this.read = read;
        this.data = data;
    }

    /**
     * Reads the first event of a stream.
     *
     * @param stream the event stream, positioned at its start; left open
     * @param limit how many bytes to read at most before giving up on finding an event
     * @return every byte read, and the first event's data if one was complete
     * @throws IOException what reading the stream threw
     */
    static FirstSseEvent read(InputStream stream, int limit) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream(512);
        byte[] buffer = new byte[Math.min(limit, 8192)];
        Parser parser = new Parser();
        while (read.size() < limit) {
            int n = stream.read(buffer, 0, Math.min(buffer.length, limit - read.size()));
            if (n < 0) {
                break;
            }
            read.write(buffer, 0, n);
            String data = parser.feed(buffer, n);
            if (data != null) {
                return new FirstSseEvent(read.toByteArray(), data);
            }
        }
        return new FirstSseEvent(read.toByteArray(), null);
    }

    /**
     * Returns every byte that was read, in order, the first event's included.
     *
     * @return the bytes; the caller must not change them
     */
    byte[] bytesRead() {
        return this.read;
    }

    /**
     * Returns the data of the first event, its {@code data} lines joined with {@code \n}.
     *
     * @return the data, or {@code null} when the stream ended, or the limit was reached, before an
     *     event was complete
     */
    @Nullable String data() {
        return this.data;
    }

    /** Line-by-line event recognition over bytes fed as they arrive. */
    private static final class Parser {

        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

        private final StringBuilder data = new StringBuilder();

        private boolean hasData;

        /** Feeds bytes; returns the first event's data once a blank line dispatches it. */
        @Nullable String feed(byte[] bytes, int length) {
            for (int i = 0; i < length; i++) {
                if (bytes[i] != '\n') {
                    this.line.write(bytes[i]);
                    continue;
                }
                String text = this.line.toString(StandardCharsets.UTF_8);
                this.line.reset();
                if (text.endsWith("\r")) {
                    text = text.substring(0, text.length() - 1);
                }
                if (text.isEmpty()) {
                    if (this.hasData) {
                        return this.data.toString();
                    }
                    continue;
                }
                field(text);
            }
            return null;
        }

        private void field(String text) {
            if (text.startsWith(":")) {
                return;
            }
            int colon = text.indexOf(':');
            String name = (colon < 0) ? text : text.substring(0, colon);
            if (!name.equals("data")) {
                return;
            }
            String value = (colon < 0) ? "" : text.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            if (this.hasData) {
                this.data.append('\n');
            }
            this.data.append(value);
            this.hasData = true;
        }
    }
}
