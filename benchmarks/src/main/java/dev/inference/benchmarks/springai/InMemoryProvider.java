package dev.inference.benchmarks.springai;

import dev.inference.retry.springai.exchange.AbandonableCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * The provider of {@link ChatModelContext#startInMemory}: an OkHttp interceptor, given to Spring AI's
 * OpenAI and Anthropic clients, that answers every request as the {@link LoopbackProvider} does, without
 * a socket, so that a benchmark measures the work of the client's side alone, whose noise the network
 * would otherwise swamp.
 *
 * <p>Trap: an application's interceptor runs before the starter's {@link AbandonableCalls}, which the
 * starter appends to the OkHttp client it makes again, so that answering here would leave out the part
 * of a timed attempt that the interceptor does. This interceptor therefore runs {@link AbandonableCalls}
 * itself, on a chain whose {@code proceed} answers: the measured path is that of a real exchange up to
 * the network. Meant for the starter's models only; Spring AI's own would run it needlessly.
 */
final class InMemoryProvider implements Interceptor {

    /** The one instance; stateless. */
    static final InMemoryProvider INSTANCE = new InMemoryProvider();

    private static final MediaType JSON = MediaType.get("application/json");

    private static final MediaType EVENT_STREAM = MediaType.get("text/event-stream; charset=utf-8");

    private InMemoryProvider() {
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        return AbandonableCalls.INSTANCE.intercept(new Answering(chain));
    }

    /** The provider's answer to a request: its whole answer, or its stream in one body. */
    static Response answer(Request request) throws IOException {
        boolean stream = asksForStream(request.body());
        byte[] body;
        try {
            body = LoopbackProvider.body(request.url().encodedPath(), stream);
        }
        catch (IllegalArgumentException ex) {
            throw new IOException("No provider answers on " + request.url(), ex);
        }
        MediaType type = stream ? EVENT_STREAM : JSON;
        Response.Builder response = new Response.Builder().request(request)
            .protocol(Protocol.HTTP_1_1)
            .code(200)
            .message("OK")
            .header("Content-Type", type.toString())
            .body(ResponseBody.create(readAsFromASocket(body), type, body.length));
        if (!stream) {
            response.header("Content-Length", Integer.toString(body.length));
        }
        return response.build();
    }

    /**
     * The body's bytes as a socket's reach the client: copied into okio's segments by the thread that
     * reads them, which then gives them back to its own share of okio's pool. A body made whole here, on
     * the dispatcher's thread, would take its segments from that thread's share and give them back to
     * the reader's: when the two threads' ids fall into different shares, the dispatcher's share runs dry
     * and every answer allocates 8 KB that a real exchange does not, in some JVMs and not in others.
     */
    private static BufferedSource readAsFromASocket(byte[] body) {
        return Okio.buffer(Okio.source(new ByteArrayInputStream(body)));
    }

    private static boolean asksForStream(@Nullable RequestBody body) throws IOException {
        if (body == null) {
            return false;
        }
        Buffer json = new Buffer();
        body.writeTo(json);
        return json.readUtf8().contains("\"stream\":true");
    }

    @Override
    public String toString() {
        return "InMemoryProvider";
    }

    /** The interceptor chain as it goes on, except that proceeding answers instead of sending. */
    private static final class Answering implements Chain {

        private final Chain chain;

        Answering(Chain chain) {
            this.chain = chain;
        }

        @Override
        public Request request() {
            return this.chain.request();
        }

        @Override
        public Response proceed(Request request) throws IOException {
            return answer(request);
        }

        @Override
        public @Nullable Connection connection() {
            return this.chain.connection();
        }

        @Override
        public Call call() {
            return this.chain.call();
        }

        @Override
        public int connectTimeoutMillis() {
            return this.chain.connectTimeoutMillis();
        }

        @Override
        public Chain withConnectTimeout(int timeout, TimeUnit unit) {
            return new Answering(this.chain.withConnectTimeout(timeout, unit));
        }

        @Override
        public int readTimeoutMillis() {
            return this.chain.readTimeoutMillis();
        }

        @Override
        public Chain withReadTimeout(int timeout, TimeUnit unit) {
            return new Answering(this.chain.withReadTimeout(timeout, unit));
        }

        @Override
        public int writeTimeoutMillis() {
            return this.chain.writeTimeoutMillis();
        }

        @Override
        public Chain withWriteTimeout(int timeout, TimeUnit unit) {
            return new Answering(this.chain.withWriteTimeout(timeout, unit));
        }
    }
}
