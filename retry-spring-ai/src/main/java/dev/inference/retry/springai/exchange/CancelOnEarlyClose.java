package dev.inference.retry.springai.exchange;

import java.io.IOException;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.ForwardingSource;
import okio.Okio;

/**
 * An OkHttp interceptor whose response bodies, closed before their end, cancel their call: the
 * connection is closed at once, never returned to the pool half-read, and a thread blocked reading the
 * body fails at once. This is how an abandoned attempt (a timeout that closes its response from the
 * {@link RetryTimer}'s thread, SPEC §11) releases its connection: OkHttp's own close of an unfinished
 * body would first try to read the rest, on the closing thread, and does not reliably close the
 * connection while another thread reads it.
 *
 * <p>A body read to its end, or never opened, closes as OkHttp closes it. Stateless; one instance serves
 * every client.
 */
public final class CancelOnEarlyClose implements Interceptor {

    /** The one instance. */
    public static final CancelOnEarlyClose INSTANCE = new CancelOnEarlyClose();

    private CancelOnEarlyClose() {
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Response response = chain.proceed(chain.request());
        ResponseBody body = response.body();
        if (body == null) {
            return response;
        }
        Call call = chain.call();
        ForwardingSource cancelling = new ForwardingSource(body.source()) {

            private volatile boolean ended;

            @Override
            public long read(Buffer sink, long byteCount) throws IOException {
                long read = super.read(sink, byteCount);
                if (read < 0) {
                    this.ended = true;
                }
                return read;
            }

            @Override
            public void close() throws IOException {
                if (!this.ended) {
                    call.cancel();
                }
                super.close();
            }
        };
        return response.newBuilder()
            .body(ResponseBody.create(Okio.buffer(cancelling), body.contentType(), body.contentLength()))
            .build();
    }

    @Override
    public String toString() {
        return "CancelOnEarlyClose";
    }
}
