package dev.inference.sample.openai;

import dev.inference.failure.NetworkException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Reads the lines of a server-sent events body: each ended by CR, LF or CR LF, decoded as UTF-8,
 * and none longer than a bound, so that a provider sending one endless line fails the read once
 * the bound is passed instead of filling the memory.
 *
 * <p>For one reading thread. Closing the body from another thread ends a read blocked in it.
 */
final class SseLines {

    private final InputStream body;

    private final int maxLineBytes;

    private final byte[] buffer = new byte[8192];

    private int position;

    private int limit;

    private byte[] line = new byte[256];

    private int length;

    /** The last line ended with a CR: an LF that comes next belongs to that line's end. */
    private boolean afterCr;

    SseLines(InputStream body, int maxLineBytes) {
        this.body = body;
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Reads the next line.
     *
     * @return the line without its end, or {@code null} at the end of the body; a last line without
     *     an end is returned before that
     * @throws NetworkException if the line is longer than the bound, in bytes
     * @throws IOException if reading the body failed
     */
    @Nullable String next() throws IOException {
        this.length = 0;
        while (true) {
            if (this.position == this.limit) {
                int read = this.body.read(this.buffer, 0, this.buffer.length);
                if (read < 0) {
                    this.position = 0;
                    this.limit = 0;
                    return (this.length > 0) ? decoded() : null;
                }
                this.position = 0;
                this.limit = read;
                continue;
            }
            byte next = this.buffer[this.position++];
            if (this.afterCr) {
                this.afterCr = false;
                if (next == '\n') {
                    continue;
                }
            }
            if (next == '\n') {
                return decoded();
            }
            if (next == '\r') {
                this.afterCr = true;
                return decoded();
            }
            append(next);
        }
    }

    /**
     * Returns the length in bytes of the line last read.
     *
     * @return the length, its end not counted
     */
    int lastLength() {
        return this.length;
    }

    private void append(byte next) {
        if (this.length == this.maxLineBytes) {
            throw new NetworkException("The provider sent a server-sent events line longer than " + this.maxLineBytes
                    + " bytes", null);
        }
        if (this.length == this.line.length) {
            this.line = Arrays.copyOf(this.line, Math.min(this.maxLineBytes, 2 * this.line.length));
        }
        this.line[this.length++] = next;
    }

    private String decoded() {
        return new String(this.line, 0, this.length, StandardCharsets.UTF_8);
    }
}
