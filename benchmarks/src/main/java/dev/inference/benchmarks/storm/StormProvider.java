package dev.inference.benchmarks.storm;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A rate-limited provider on a loopback port in OpenAI's wire format ({@code POST /v1/chat/completions}):
 * a {@link RequestWindow} decides each request; an admitted one gets a whole chat completion at once,
 * a refused one a 429 with {@code Retry-After} (whole seconds to the reset) and OpenAI's
 * {@code rate_limit_exceeded} error body. Both carry OpenAI's {@code x-ratelimit-*} headers: the
 * requests' limit, what remains of it and when it resets, and a token limit that is never reached.
 *
 * <p>Each run {@linkplain #begin begins} a fresh window and tally, so that requests before it (an
 * application's warm-up) are not counted. Traps: the exchanges run on a small pool, so one slow client
 * cannot hold the others; and small writes are not delayed ({@code sun.net.httpserver.nodelay}).
 */
final class StormProvider implements AutoCloseable {

    static final String PATH = "/v1/chat/completions";

    private static final long TOKEN_LIMIT = 1_000_000;

    private static final int TOKENS_PER_REQUEST = 6;

    private static final byte[] COMPLETION = """
            {"id":"chatcmpl-storm","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
            "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop",\
            "logprobs":null}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}"""
        .getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;

    private final ExecutorService exchanges;

    private final int capacity;

    private final Duration window;

    private volatile Run run;

    private StormProvider(HttpServer server, ExecutorService exchanges, int capacity, Duration window) {
        this.server = server;
        this.exchanges = exchanges;
        this.capacity = capacity;
        this.window = window;
        this.run = new Run(new RequestWindow(capacity, window), new StormTally(), System.nanoTime());
    }

    /**
     * Starts a provider on a free loopback port, its first run begun with a tally nobody reads.
     *
     * @param capacity the requests admitted per window
     * @param window the window's length
     * @return the running provider
     * @throws UncheckedIOException if the port cannot be bound
     */
    static StormProvider start(int capacity, Duration window) {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot bind the storm's provider", ex);
        }
        ExecutorService exchanges = Executors.newFixedThreadPool(4);
        StormProvider provider = new StormProvider(server, exchanges, capacity, window);
        server.createContext(PATH, provider::answer);
        server.setExecutor(exchanges);
        server.start();
        return provider;
    }

    /**
     * Begins a run: a fresh window whose first starts now, and the tally that counts its requests.
     *
     * @param tally where the requests are counted, their time measured from now
     * @return the run's start, on {@link System#nanoTime()}'s clock
     */
    long begin(StormTally tally) {
        long start = System.nanoTime();
        this.run = new Run(new RequestWindow(this.capacity, this.window), tally, start);
        return start;
    }

    /**
     * Returns the base URL a Spring AI OpenAI model is given.
     *
     * @return such as {@code http://127.0.0.1:40123/v1}
     */
    String baseUrl() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1";
    }

    @Override
    public void close() {
        this.server.stop(0);
        this.exchanges.shutdownNow();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            try (InputStream request = exchange.getRequestBody()) {
                request.readAllBytes();
            }
            Run current = this.run;
            long at = System.nanoTime() - current.start();
            RequestWindow.Admission admission = current.window().admit(at);
            current.tally().request(at, !admission.admitted());
            var headers = exchange.getResponseHeaders();
            headers.set("Content-Type", "application/json");
            headers.set("x-ratelimit-limit-requests", Integer.toString(this.capacity));
            headers.set("x-ratelimit-remaining-requests", Integer.toString(admission.remaining()));
            headers.set("x-ratelimit-reset-requests", admission.resetHeader());
            headers.set("x-ratelimit-limit-tokens", Long.toString(TOKEN_LIMIT));
            headers.set("x-ratelimit-remaining-tokens", Long.toString(TOKEN_LIMIT - TOKENS_PER_REQUEST));
            headers.set("x-ratelimit-reset-tokens", "0s");
            byte[] body;
            int status;
            if (admission.admitted()) {
                status = 200;
                body = COMPLETION;
            }
            else {
                status = 429;
                headers.set("Retry-After", admission.retryAfterHeader());
                body = rateLimited(admission).getBytes(StandardCharsets.UTF_8);
            }
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    private String rateLimited(RequestWindow.Admission admission) {
        return """
                {"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-storm on requests \
                per %s: Limit %d, Used %d, Requested 1. Please try again in %s.","type":"requests",\
                "param":null,"code":"rate_limit_exceeded"}}"""
            .formatted(this.window, this.capacity, this.capacity, admission.resetHeader());
    }

    private record Run(RequestWindow window, StormTally tally, long start) {
    }
}
