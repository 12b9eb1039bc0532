package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.ForwardingSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * The OkHttp interceptor through which an attempt is abandoned (SPEC §11) on the transport the starter
 * makes again for an SDK's model: the OpenAI and Anthropic SDKs' OkHttp client.
 *
 * <p>A blocking call made while an attempt is {@linkplain #bind bound} to the calling thread is
 * cancelled when that attempt's context is (its timeout, on the timer's thread): the call stays on its
 * caller's thread, never queued on OkHttp's dispatcher, whose limit per host (5 by default) would
 * otherwise eat the attempt's time. A response body closed before its end cancels its call, so that the
 * connection is closed at once and never returned to the pool half-read, and a thread blocked reading
 * the body fails at once: OkHttp's own close of an unfinished body would first read the rest on the
 * closing thread. A body read to its end, or never opened, closes as OkHttp closes it.
 *
 * <p>Trap: an application interceptor runs on the caller's thread only for a blocking call; an
 * asynchronous call runs on a dispatcher thread, where no attempt is bound. Stateless apart from the
 * binding of the thread; one instance serves every client.
 */
public final class AbandonableCalls implements Interceptor {

    /** The one instance. */
    public static final AbandonableCalls INSTANCE = new AbandonableCalls();

    private static final ThreadLocal<CallContext> ATTEMPT = new ThreadLocal<>();

    private AbandonableCalls() {
    }

    /**
     * Binds an attempt to the calling thread until the binding is closed: the blocking call this thread
     * makes meanwhile is cancelled when the attempt's context is.
     *
     * @param attempt the attempt's context
     * @return the binding, to close once the call has returned
     */
    static Binding bind(CallContext attempt) {
        ATTEMPT.set(attempt);
        return ATTEMPT::remove;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Call call = chain.call();
        @Nullable CallContext attempt = ATTEMPT.get();
        Response response;
        // The attempt's end cancels the call; on a context already done, at once.
        try (CallContext.Registration cancel = (attempt != null) ? attempt.onCancel(call::cancel) : () -> {
        }) {
            response = chain.proceed(chain.request());
        }
        ResponseBody body = response.body();
        if (body == null) {
            return response;
        }
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
        return "AbandonableCalls";
    }

    /** An attempt bound to a thread. */
    @FunctionalInterface
    interface Binding extends AutoCloseable {

        /** Unbinds the attempt. Never throws. */
        @Override
        void close();
    }
}
