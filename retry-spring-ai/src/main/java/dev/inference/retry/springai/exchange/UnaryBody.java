package dev.inference.retry.springai.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the body of a successful unary response within its attempt, so that a body that breaks before
 * it is complete (the connection reset, a malformed chunk, fewer bytes than announced) fails the
 * attempt as the network failure it is, and is retried, instead of failing the client's parsing after
 * the attempt was counted a success. A stream is not read so: only up to its first event
 * ({@link FirstSseEvent}), since once content has begun a failure is final.
 *
 * <p>What it costs: the client reads the whole body anyway before it parses it (a chat completion is
 * one JSON document), so reading it first adds one copy of bytes already in memory, a few kilobytes for
 * a completion, against an exchange of hundreds of milliseconds, and lets the connection go back to the
 * pool as soon as the last byte has arrived. A body whose length is announced is read into an array of
 * that length. Trap: a body longer than {@link #LIMIT} (or than announced) is read that far only, and
 * the rest goes to the client as it arrives, where a failure is the client's, as it was.
 */
public final class UnaryBody {

    /**
     * How much of a unary body is read within the attempt: far more than a chat completion (the text of
     * 128k tokens is well under a megabyte), and a bound on what one call holds in memory beyond what
     * its client holds itself.
     */
    static final int LIMIT = 16 * 1024 * 1024;

    private UnaryBody() {
    }

    /**
     * The longest announced length read into an array of that length at once; a longer one is read as a
     * body of unknown length, so that a wrong {@code Content-Length} cannot make a call hold that much
     * memory before a byte has arrived.
     */
    static final int SIZED_LIMIT = 1024 * 1024;

    /**
     * Reads a body to its end, or to {@link #LIMIT} bytes.
     *
     * @param body the body, positioned at its start; left open
     * @return the bytes read; fewer than {@link #LIMIT} when the body ended
     * @throws IOException what reading the body threw, such as for a connection that broke before its end
     */
    static byte[] read(InputStream body) throws IOException {
        return body.readNBytes(LIMIT);
    }

    /**
     * Reads a body whose response announced its length ({@code Content-Length}): that many bytes, into an
     * array of that length, with no scratch buffer and no copy; what follows them, if the body is longer
     * than announced, is left to the reader after the attempt. A length that is unknown (negative) or
     * above {@link #SIZED_LIMIT} is read as {@link #read(InputStream)} reads.
     *
     * @param body the body, positioned at its start; left open
     * @param announced the length the response announced, or a negative number when it announced none
     * @return the bytes read; fewer than announced when the body ended before
     * @throws IOException what reading the body threw, such as for a connection that broke before its end
     */
    public static byte[] read(InputStream body, long announced) throws IOException {
        if (announced < 0 || announced > SIZED_LIMIT) {
            return read(body);
        }
        byte[] bytes = new byte[(int) announced];
        int read = body.readNBytes(bytes, 0, bytes.length);
        return (read == bytes.length) ? bytes : Arrays.copyOf(bytes, read);
    }

    /**
     * Returns the length that {@code Content-Length} values announce.
     *
     * @param values the values of the response's {@code Content-Length} header
     * @return the length, or {@code -1} when there is none, or not exactly one well-formed value
     */
    static long announcedLength(List<String> values) {
        if (values.size() != 1) {
            return -1;
        }
        String value = values.get(0).trim();
        if (value.isEmpty() || value.length() > 18) {
            return -1;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(value);
    }
}
