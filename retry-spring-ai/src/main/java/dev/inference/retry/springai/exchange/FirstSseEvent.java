package dev.inference.retry.springai.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

    /** Room for a first event of a few hundred bytes, and what came with it in the same read. */
    private static final int INITIAL_CAPACITY = 2 * 1024;

    private final byte[] read;

    private final @Nullable Event event;

    private final int eventEnd;

    private FirstSseEvent(byte[] read, @Nullable Event event, int eventEnd) {
        this.read = read;
        this.event = event;
        this.eventEnd = eventEnd;
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
        // Read straight into the bytes kept, and parsed there: each byte is looked at once.
        byte[] read = new byte[Math.min(limit, INITIAL_CAPACITY)];
        int length = 0;
        Parser parser = new Parser();
        while (length < limit) {
            if (length == read.length) {
                read = Arrays.copyOf(read, (int) Math.min(limit, 2L * read.length));
            }
            int n = stream.read(read, length, read.length - length);
            if (n < 0) {
                break;
            }
            length += n;
            Event event = parser.parse(read, length, preamble);
            if (event != null) {
                return new FirstSseEvent(Arrays.copyOf(read, length), event, parser.next + 1);
            }
        }
        return new FirstSseEvent(Arrays.copyOf(read, length), null, 0);
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
     * Returns where the first event ended in {@link #bytesRead()}: just past the line end of the blank
     * line that dispatched it. What comes before it is whole events, read past or returned; what comes
     * after it came with the event in the same read. A {@code \n} there may be the second half of a
     * {@code \r\n} that the blank line's {@code \r} began: read as a line of its own it is one more
     * blank line, which dispatches nothing.
     *
     * @return the offset, or {@code 0} when no event was complete
     */
    int eventEnd() {
        return this.eventEnd;
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

    /** Line-by-line event recognition over the bytes read so far, each looked at once. */
    private static final class Parser {

        private static final byte[] DATA = { 'd', 'a', 't', 'a' };

        private static final byte[] EVENT = { 'e', 'v', 'e', 'n', 't' };

        /** Where the line being read starts. */
        private int lineStart;

        /** The first byte not looked at yet. */
        private int next;

        /** Whether the last byte was a {@code \r}, which ended a line: a {@code \n} right after it ends none. */
        private boolean afterCarriageReturn;

        private @Nullable String data;

        private @Nullable String name;

        /**
         * Looks at the bytes read since the last call, line by line; returns the first dispatched event
         * that is not preamble, or {@code null} when none is complete yet.
         */
        @Nullable Event parse(byte[] bytes, int length, Predicate<Event> preamble) {
            for (; this.next < length; this.next++) {
                byte current = bytes[this.next];
                if (current == '\n' && this.afterCarriageReturn) {
                    this.afterCarriageReturn = false;
                    this.lineStart = this.next + 1;
                    continue;
                }
                this.afterCarriageReturn = current == '\r';
                if (current != '\n' && current != '\r') {
                    continue;
                }
                Event event = line(bytes, this.lineStart, this.next);
                this.lineStart = this.next + 1;
                if (event != null && !preamble.test(event)) {
                    return event;
                }
            }
            return null;
        }

        /** One line, its end left out; returns the event that a blank line dispatches. */
        private @Nullable Event line(byte[] bytes, int from, int to) {
            if (from == to) {
                Event event = (this.data != null) ? new Event(this.name, this.data) : null;
                this.data = null;
                this.name = null;
                return event;
            }
            if (bytes[from] == ':') {
                return null;
            }
            int colon = from;
            while (colon < to && bytes[colon] != ':') {
                colon++;
            }
            int value = Math.min(colon + 1, to);
            if (value < to && bytes[value] == ' ') {
                value++;
            }
            if (isField(bytes, from, colon, EVENT)) {
                this.name = new String(bytes, value, to - value, StandardCharsets.UTF_8);
            }
            else if (isField(bytes, from, colon, DATA)) {
                String line = new String(bytes, value, to - value, StandardCharsets.UTF_8);
                this.data = (this.data != null) ? this.data + "\n" + line : line;
            }
            return null;
        }

        private static boolean isField(byte[] bytes, int from, int to, byte[] field) {
            return Arrays.equals(bytes, from, to, field, 0, field.length);
        }
    }
}
