package dev.inference.retry.springai.exchange;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Optional;

/**
 * Makes a provider SDK's response whose body has been read within its attempt (a stream's first event,
 * a unary body up to {@link UnaryBody#LIMIT}) whole again: its body gives the bytes already read, then
 * the rest of the original body, so that the reader after the attempt sees the body exactly as the
 * provider sent it. Everything else (status, headers, closing) is the original's.
 *
 * <p>The response is a {@link ForwardingProxy} of the SDK's response interface, so one implementation
 * serves every SDK: only {@code body()} is its own, and the interface's default methods (such as a
 * JSON reader) read that body.
 */
public final class PeekedResponse {

    private PeekedResponse() {
    }

    /**
     * Returns a response whose body is the peeked bytes followed by the rest of the original body.
     *
     * @param <R> the SDK's response interface
     * @param type that interface, which must declare {@code InputStream body()}
     * @param original the response whose body was read in part
     * @param rest the original body, positioned after the peeked bytes
     * @param peeked the bytes already read, in order
     * @return the whole response; {@code body()} gives the same stream each time, and closing that
     *     stream or the response closes the original
     */
    public static <R> R of(Class<R> type, R original, InputStream rest, byte[] peeked) {
        InputStream body = body(peeked, rest);
        return ForwardingProxy.of(type, original, "PeekedResponse", (method, args) -> method.getName().equals("body")
                && method.getParameterCount() == 0 ? Optional.of(body) : Optional.empty());
    }

    /**
     * Returns a body that gives the bytes already read, then the rest of the original body.
     *
     * @param peeked the bytes already read, in order
     * @param rest the original body, positioned after them
     * @return the whole body; closing it closes {@code rest}
     */
    static InputStream body(byte[] peeked, InputStream rest) {
        return new SequenceInputStream(new ByteArrayInputStream(peeked), rest) {

            @Override
            public void close() throws IOException {
                // SequenceInputStream closes each part as it moves on; closing must reach the original.
                super.close();
                rest.close();
            }
        };
    }
}
