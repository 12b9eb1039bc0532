package dev.inference.retry.springai.exchange;

import java.io.IOException;
import java.io.InputStream;

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
 * pool as soon as the last byte has arrived. Trap: a body longer than {@link #LIMIT} is read that far
 * only, and the rest goes to the client as it arrives, where a failure is the client's, as it was.
 */
final class UnaryBody {

    /**
     * How much of a unary body is read within the attempt: far more than a chat completion (the text of
     * 128k tokens is well under a megabyte), and a bound on what one call holds in memory beyond what
     * its client holds itself.
     */
    static final int LIMIT = 16 * 1024 * 1024;

    private UnaryBody() {
    }

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
}
