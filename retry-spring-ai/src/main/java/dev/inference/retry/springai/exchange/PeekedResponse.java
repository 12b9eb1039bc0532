package dev.inference.retry.springai.exchange;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * Makes the body of a provider SDK's response whole again once it has been read within its attempt (a
 * stream's first event, a unary body up to {@link UnaryBody#LIMIT}): the bytes already read, then the
 * rest of the original body, so that the reader after the attempt sees the body exactly as the
 * provider sent it. The response that carries it is the SDK's own ({@link SdkHttp#withBody}), or the
 * one Spring's {@code RestClient} hands on ({@link RetryingRequestInterceptor}).
 */
public final class PeekedResponse {

    private PeekedResponse() {
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
