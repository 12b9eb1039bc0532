package dev.inference.retry.springai.exchange;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Reads a server-sent event stream up to the end of its first event, keeping every byte read so that
 * the stream can be handed on whole.
 *
 * <p>Events are recognised as the HTML standard's event-stream interpretation (and the provider SDKs'
 * parsers) recognise them: lines end with {@code \r\n}, {@code \n} or {@code \r}, a blank line
 * dispatches the event if it has at least one {@code data} line, lines starting with {@code :} are
 * comments. Events that a caller calls preamble (such as Anthropic's {@code message_start}, which says
 * nothing of the outcome) are read past. Reading stops at the first other event, at the end of the
 * stream, or once {@code limit} bytes were read without one; it reads as the bytes arrive and never
 * waits for more than that event needs. Not thread-safe.
 */
public final class FirstSseEvent {

    /** Enough for any first event a provider sends; past this, the stream is content, not an error. */
    public static final int DEFAULT_LIMIT = 64 * 1024;

    private final byte[] read;

    private final @Nullable Event event;

    private FirstSseEvent(byte[] read, @Nullable Event event) {
        this.read = read;
        this.event = event;
    }

    /**
     * Reads the first event of a stream.
     *
     * @param stream the event stream, positioned at its start; left open
     * @param limit how many bytes to read at most before giving up on finding an event
     * @return every byte read, and the first event if one was complete
     * @throws IOException what reading the stream threw
     */
    public static FirstSseEvent read(InputStream stream, int limit) throws IOException {
        return read(stream, limit, (event) -> false);
    }

    /**
     * Reads a stream up to its first event that is not preamble.
     *
     * @param stream the event stream, positioned at its start; left open
     * @param limit how many bytes to read at most before giving up on finding such an event
     * @param preamble which events to read past
     * @return every byte read, and the first event that is not preamble if one was complete
     * @throws IOException what reading the stream threw
     */
    static FirstSseEvent read(InputStream stream, int limit, Predicate<Event> preamble) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream(512);
        byte[] buffer = new byte[Math.min(limit, 8192)];
        Parser parser = new Parser();
        while (read.size() < limit) {
            int n = stream.read(buffer, 0, Math.min(buffer.length, limit - read.size()));
            if (n < 0) {
                break;
            }
            read.write(buffer, 0, n);
            for (int i = 0; i < n; i++) {
                Event event = parser.feed(buffer[i]);
                if (event != null && !preamble.test(event)) {
                    return new FirstSseEvent(read.toByteArray(), event);
                }
            }
        }
        return new FirstSseEvent(read.toByteArray(), null);
    }

    /**
     * Returns every byte that was read, in order, the first event's included.
     *
     * @return the bytes; the caller must not change them
     */
    public byte[] bytesRead() {
        return this.read;
    }

    /**
     * Returns the first event.
     *
     * @return the event, or {@code null} when the stream ended, or the limit was reached, before an
     *     event was complete
     */
    @Nullable Event event() {
        return this.event;
    }

    /**
     * Returns the data of the first event, its {@code data} lines joined with {@code \n}.
     *
     * @return the data, or {@code null} when the stream ended, or the limit was reached, before an
     *     event was complete
     */
    public @Nullable String data() {
        return (this.event != null) ? this.event.data() : null;
    }

    /**
     * One dispatched event.
     *
     * @param name its {@code event} field, or {@code null} when it had none
     * @param data its {@code data} lines joined with {@code \n}
     */
    public record Event(@Nullable String name, String data) {
    }

    /** Line-by-line event recognition over bytes fed as they arrive. */
    private static final class Parser {

        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

        private final StringBuilder data = new StringBuilder();

        private boolean hasData;

        private @Nullable String name;

        /** Whether the last byte was a {@code \r}, which ended a line: a {@code \n} right after it ends none. */
        private boolean afterCarriageReturn;

        /** Feeds one byte; returns the event that a blank line dispatches. */
        @Nullable Event feed(byte next) {
            boolean secondOfCrLf = next == '\n' && this.afterCarriageReturn;
            this.afterCarriageReturn = next == '\r';
            if (secondOfCrLf) {
                return null;
            }
            if (next != '\n' && next != '\r') {
                this.line.write(next);
                return null;
            }
            String text = this.line.toString(StandardCharsets.UTF_8);
            this.line.reset();
            if (!text.isEmpty()) {
                field(text);
                return null;
            }
            Event event = this.hasData ? new Event(this.name, this.data.toString()) : null;
            this.data.setLength(0);
            this.hasData = false;
            this.name = null;
            return event;
        }

        private void field(String text) {
            if (text.startsWith(":")) {
                return;
            }
            int colon = text.indexOf(':');
            String field = (colon < 0) ? text : text.substring(0, colon);
            String value = (colon < 0) ? "" : text.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            if (field.equals("event")) {
                this.name = value;
                return;
            }
            if (!field.equals("data")) {
                return;
            }
            if (this.hasData) {
                this.data.append('\n');
            }
            this.data.append(value);
            this.hasData = true;
        }
    }
}
