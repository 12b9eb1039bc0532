package dev.inference.benchmarks.springai;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A provider on a loopback port that answers every request at once and always the same way, in
 * OpenAI's wire format ({@code POST /v1/chat/completions}) and in Anthropic's ({@code POST
 * /v1/messages}): a whole answer for a request without {@code "stream":true}, else a server-sent event
 * stream written and flushed one event at a time, as the providers send them.
 *
 * <p>The OpenAI stream opens with the chunk that only says the role, as OpenAI opens every stream,
 * then one chunk per piece of {@link #CONTENT}, a chunk that says "stop" and {@code [DONE]}. The
 * Anthropic stream opens with {@code message_start}, an empty text block's start and a {@code ping},
 * then one delta per piece, the block's stop, the message's delta and stop.
 *
 * <p>Traps: the JDK server runs every exchange on its own dispatcher thread (no executor, so no
 * hand-off on the provider's side), whose allocations the harness leaves out
 * ({@link #exchangeThread()}); and it must not delay small writes ({@code sun.net.httpserver.nodelay}, set by
 * {@link #start()}), or the events of a stream would wait on the client's delayed acknowledgements.
 */
final class LoopbackProvider implements AutoCloseable {

    /** What every answer says, one piece per chunk of a stream. */
    static final List<String> CONTENT = List.of("Hel", "lo", "!");

    static final String OPENAI_PATH = "/v1/chat/completions";

    static final String ANTHROPIC_PATH = "/v1/messages";

    private static final byte[] OPENAI_COMPLETION = utf8("""
            {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
            "choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"stop",\
            "logprobs":null}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}"""
        .formatted(String.join("", CONTENT)));

    private static final List<byte[]> OPENAI_STREAM = openAiStream();

    private static final byte[] ANTHROPIC_MESSAGE = utf8("""
            {"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",\
            "content":[{"type":"text","text":"%s"}],"stop_reason":"end_turn","stop_sequence":null,\
            "usage":{"input_tokens":3,"output_tokens":3}}""".formatted(String.join("", CONTENT)));

    private static final List<byte[]> ANTHROPIC_STREAM = anthropicStream();

    /** Every answer in one block of bytes, by path: the whole answer, then the stream's events one after the other. */
    private static final Map<String, List<byte[]>> BODIES = Map.of(
            OPENAI_PATH, List.of(joined(List.of(OPENAI_COMPLETION)), joined(OPENAI_STREAM)),
            ANTHROPIC_PATH, List.of(joined(List.of(ANTHROPIC_MESSAGE)), joined(ANTHROPIC_STREAM)));

    private final HttpServer server;

    /** The id of the thread the exchanges run on, once one has run. */
    private volatile long exchangeThread = -1;

    private LoopbackProvider(HttpServer server) {
        this.server = server;
    }

    /**
     * Starts a provider on a free loopback port.
     *
     * @return the running provider
     * @throws UncheckedIOException if the port cannot be bound
     */
    static LoopbackProvider start() {
        // Read once, when the JDK server's configuration is first loaded: set before the first server.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot bind the loopback provider", ex);
        }
        LoopbackProvider provider = new LoopbackProvider(server);
        server.createContext(OPENAI_PATH, (exchange) -> provider.answer(exchange, OPENAI_COMPLETION, OPENAI_STREAM));
        server.createContext(ANTHROPIC_PATH,
                (exchange) -> provider.answer(exchange, ANTHROPIC_MESSAGE, ANTHROPIC_STREAM));
        server.start();
        return provider;
    }

    /**
     * Returns the provider's root.
     *
     * @return such as {@code http://127.0.0.1:40123}
     */
    String root() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    /**
     * Returns the thread every exchange runs on, for the harness to leave its allocations out.
     *
     * @return its id
     * @throws IllegalStateException before the first exchange
     */
    long exchangeThread() {
        long id = this.exchangeThread;
        if (id < 0) {
            throw new IllegalStateException("The provider has not answered yet");
        }
        return id;
    }

    /**
     * Returns what the provider answers on a path, as one block of bytes: the whole answer, or every
     * event of the stream one after the other.
     *
     * @param path {@link #OPENAI_PATH} or {@link #ANTHROPIC_PATH}
     * @param stream whether the request asked for a stream
     * @return the body, the same array each time: to be left unchanged
     * @throws IllegalArgumentException for another path
     */
    static byte[] body(String path, boolean stream) {
        List<byte[]> bodies = BODIES.get(path);
        if (bodies == null) {
            throw new IllegalArgumentException("No provider answers on " + path);
        }
        return bodies.get(stream ? 1 : 0);
    }

    private static byte[] joined(List<byte[]> events) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        events.forEach(body::writeBytes);
        return body.toByteArray();
    }

    @Override
    public void close() {
        this.server.stop(0);
    }

    private void answer(HttpExchange exchange, byte[] whole, List<byte[]> events) throws IOException {
        this.exchangeThread = Thread.currentThread().getId();
        try (exchange) {
            boolean stream;
            try (InputStream request = exchange.getRequestBody()) {
                stream = new String(request.readAllBytes(), StandardCharsets.UTF_8).contains("\"stream\":true");
            }
            if (!stream) {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, whole.length);
                exchange.getResponseBody().write(whole);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            // Length 0: chunked, each flush sending one chunk.
            exchange.sendResponseHeaders(200, 0);
            OutputStream body = exchange.getResponseBody();
            for (byte[] event : events) {
                body.write(event);
                body.flush();
            }
        }
    }

    private static List<byte[]> openAiStream() {
        String chunk = """
                {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",\
                "choices":[{"index":0,"delta":%s,"finish_reason":%s}]}""";
        List<String> events = new ArrayList<>();
        events.add(chunk.formatted("{\"role\":\"assistant\",\"content\":\"\"}", "null"));
        for (String piece : CONTENT) {
            events.add(chunk.formatted("{\"content\":\"" + piece + "\"}", "null"));
        }
        events.add(chunk.formatted("{}", "\"stop\""));
        events.add("[DONE]");
        return events.stream().map((data) -> utf8("data: " + data + "\n\n")).toList();
    }

    private static List<byte[]> anthropicStream() {
        List<String> events = new ArrayList<>();
        events.add(event("message_start", """
                {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",\
                "model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,\
                "usage":{"input_tokens":3,"output_tokens":1}}}"""));
        events.add(event("content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
        events.add(event("ping", "{\"type\": \"ping\"}"));
        for (String piece : CONTENT) {
            events.add(event("content_block_delta", """
                    {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}"""
                .formatted(piece)));
        }
        events.add(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
        events.add(event("message_delta", """
                {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},\
                "usage":{"output_tokens":3}}"""));
        events.add(event("message_stop", "{\"type\":\"message_stop\"}"));
        return events.stream().map(LoopbackProvider::utf8).toList();
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
