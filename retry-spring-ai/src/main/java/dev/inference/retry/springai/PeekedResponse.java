package dev.inference.retry.springai;

import com.openai.core.http.Headers;
import com.openai.core.http.HttpResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * A response whose body has been read in part: its body gives the bytes already read, then the rest of
 * the original body, so that the reader after the peek sees the stream exactly as the provider sent it.
 * Status and headers are the original's; closing closes the original.
 */
final class PeekedResponse implements HttpResponse {

    private final HttpResponse original;

    private final InputStream body;

    PeekedResponse(HttpResponse original, InputStream rest, byte[] peeked) {
        this.original = original;
        this.body = new SequenceInputStream(new ByteArrayInputStream(peeked), rest) {

            @Override
            public void close() throws IOException {
                // SequenceInputStream closes each part as it moves on; closing must reach the original.
                super.close();
                rest.close();
            }
        };
    }

    @Override
    public int statusCode() {
        return this.original.statusCode();
    }

    @Override
    public Headers headers() {
        return this.original.headers();
    }

    /**
     * Returns the body: the peeked bytes, then the rest of the original body. The same stream each time.
     *
     * @return the body
     */
    @Override
    public InputStream body() {
        return this.body;
    }

    @Override
    public void close() {
        this.original.close();
    }

    @Override
    public String toString() {
        return "PeekedResponse[" + this.original + "]";
    }
}
