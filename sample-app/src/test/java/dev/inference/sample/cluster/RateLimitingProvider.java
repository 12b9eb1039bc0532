package dev.inference.sample.cluster;

import dev.inference.sample.Http1;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An OpenAI-compatible provider on an ephemeral port of 127.0.0.1 that rate-limits the account for
 * one window. Until it is {@linkplain #arm() armed} it answers every request 200 (so that the
 * instances can warm up); then the first request opens the window, and every request that arrives
 * within it is answered 429 with {@code Retry-After} in whole seconds; after the window, 200 again. It
 * records when each request arrived (on {@link System#nanoTime()}), which instance sent it (its bearer
 * token) and the status it got.
 *
 * <p>On plain sockets, one exchange per connection, each response written at once with
 * {@code TCP_NODELAY}: sent in two writes, as the JDK's {@code HttpServer} sends head and body, a
 * response may wait for the client's delayed acknowledgement (40 ms on Linux), which would be
 * measured as the instances' delay in hearing a 429.
 */
final class RateLimitingProvider implements AutoCloseable {

    private static final String RATE_LIMITED = "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
            + "\"code\":\"rate_limit_exceeded\"}}";

    /** The longest a connection waits for its request: a guard, never reached by a passing test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    /**
     * A request as the provider saw it.
     *
     * @param nanos when it had been read, on {@link System#nanoTime()}
     * @param instance the bearer token it carried, which names the instance that sent it
     * @param status the status it was answered
     */
    record Arrival(long nanos, String instance, int status) {
    }

    private final ServerSocket server;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

    private final long windowNanos;

    private final int retryAfterSeconds;

    /** Guarded by {@code this}, as are the fields below. */
    private final List<Arrival> arrivals = new ArrayList<>();

    private boolean armed;

    private boolean windowOpened;

    private long windowStart;

    private RateLimitingProvider(ServerSocket server, Duration window, int retryAfterSeconds) {
        this.server = server;
        this.windowNanos = window.toNanos();
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /**
     * Starts a provider on an ephemeral port of 127.0.0.1.
     *
     * @param window how long the rate limit lasts from the first request after {@link #arm()}
     * @param retryAfterSeconds the {@code Retry-After} of its 429s
     * @return the running provider
     * @throws IOException if no port can be opened
     */
    static RateLimitingProvider start(Duration window, int retryAfterSeconds) throws IOException {
        // A backlog for ten instances' calls arriving at once after a cool-down.
        ServerSocket server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        RateLimitingProvider provider = new RateLimitingProvider(server, window, retryAfterSeconds);
        provider.threads.execute(provider::accept);
        return provider;
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + this.server.getLocalPort());
    }

    /** Makes the next request open the rate limit's window. */
    synchronized void arm() {
        this.armed = true;
    }

    /**
     * Returns when the window opened.
     *
     * @return the arrival of its first request, on {@link System#nanoTime()}, or empty before that
     */
    synchronized OptionalLong windowStart() {
        return this.windowOpened ? OptionalLong.of(this.windowStart) : OptionalLong.empty();
    }

    /**
     * Returns every request since the provider started, in order of arrival.
     *
     * @return a snapshot
     */
    synchronized List<Arrival> arrivals() {
        return List.copyOf(this.arrivals);
    }

    /** Stops accepting connections, drops every open one, and waits for the provider's threads to end. */
    @Override
    public void close() throws IOException {
        this.server.close();
        for (Socket connection : this.connections) {
            connection.close();
        }
        this.threads.shutdownNow();
        try {
            this.threads.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void accept() {
        while (!this.server.isClosed()) {
            Socket connection;
            try {
                connection = this.server.accept();
            }
            catch (IOException ex) {
                // Closed: the provider is stopping.
                return;
            }
            this.connections.add(connection);
            this.threads.execute(() -> serve(connection));
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            connection.setTcpNoDelay(true);
            connection.setSoTimeout(READ_TIMEOUT_MILLIS);
            Http1.Request request = Http1.readRequest(new BufferedInputStream(connection.getInputStream()));
            if (request == null) {
                return;
            }
            String authorization = request.header("Authorization");
            String instance = (authorization != null) ? authorization.replaceFirst("^Bearer ", "") : "";
            int status = decide(System.nanoTime(), instance);
            String response = (status == 429)
                    ? Http1.response(429, Map.of("Content-Type", "application/json", "Retry-After",
                            Integer.toString(this.retryAfterSeconds)), RATE_LIMITED)
                    : Http1.response(200, Map.of("Content-Type", "application/json"), Http1.completionJson("ok"));
            OutputStream out = connection.getOutputStream();
            out.write(response.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        catch (IOException ex) {
            // The client went away or the provider is stopping: nobody is left to answer.
        }
        finally {
            this.connections.remove(connection);
        }
    }

    private synchronized int decide(long now, String instance) {
        if (this.armed && !this.windowOpened) {
            this.windowStart = now;
            this.windowOpened = true;
        }
        int status = (this.windowOpened && now - this.windowStart < this.windowNanos) ? 429 : 200;
        this.arrivals.add(new Arrival(now, instance, status));
        return status;
    }
}
