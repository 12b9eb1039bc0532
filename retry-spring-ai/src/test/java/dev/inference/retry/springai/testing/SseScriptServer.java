package dev.inference.retry.springai.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider on a port of 127.0.0.1 whose every request plays the next queued {@link Script}: a
 * chunked server-sent events stream written and flushed event by event, with pauses, keep-alive
 * comments or {@code ping}s between them, a hang that answers nothing, or a whole JSON answer. It
 * counts the requests it read and the connections it holds, and tells a connection the client closed
 * (an abandoned request) from one the script finished.
 *
 * <p>Plain sockets, one exchange per connection ({@code Connection: close}), so that a client's close
 * is seen while the script waits: the JDK's {@code HttpServer} cannot tell it before its next write.
 * A request with no script left is answered 500. Thread-safe; {@link #close()} drops every connection.
 */
public final class SseScriptServer implements AutoCloseable {

    /** What the server does with one request. */
    @FunctionalInterface
    public interface Script {

        /**
         * Plays the answer.
         *
         * @param exchange the request read and the connection to answer on
         * @throws IOException if the client went away, which ends the script
         */
        void play(Exchange exchange) throws IOException;
    }

    /** One request read on its own connection. */
    public record Request(String method, String path, Map<String, String> headers, String body) {
    }

    /** The client closed the connection while the script was waiting or writing. */
    static final class ClientGone extends IOException {

        private static final long serialVersionUID = 1L;

        ClientGone() {
            super("The client closed the connection");
        }
    }

    private final ServerSocket server;

    private final Queue<Script> scripts = new ConcurrentLinkedQueue<>();

    private final List<Request> requests = new CopyOnWriteArrayList<>();

    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private final AtomicInteger closedByClient = new AtomicInteger();

    private SseScriptServer(ServerSocket server) {
        this.server = server;
        Thread acceptor = new Thread(this::accept, "sse-script-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a server on an ephemeral port of 127.0.0.1.
     *
     * @return the running server
     */
    public static SseScriptServer start() {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new SseScriptServer(server);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not open a loopback port", ex);
        }
    }

    /**
     * Returns the base URL to point a client at.
     *
     * @return {@code http://127.0.0.1:<port>}
     */
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + this.server.getLocalPort());
    }

    /**
     * Queues the answers of the next requests, in order.
     *
     * @param next the scripts
     * @return this server
     */
    public SseScriptServer enqueue(Script... next) {
        this.scripts.addAll(List.of(next));
        return this;
    }

    /**
     * Returns how many requests were read.
     *
     * @return the count
     */
    public int requestCount() {
        return this.requests.size();
    }

    /**
     * Returns the requests read, in order.
     *
     * @return a snapshot
     */
    public List<Request> requests() {
        return List.copyOf(this.requests);
    }

    /**
     * Returns how many connections are open now.
     *
     * @return the count
     */
    public int openConnections() {
        return this.open.size();
    }

    /**
     * Returns how many connections the client closed before their script ended: abandoned requests.
     *
     * @return the count
     */
    public int closedByClient() {
        return this.closedByClient.get();
    }

    @Override
    public void close() {
        try {
            this.server.close();
        }
        catch (IOException ex) {
            // Stopping is all that was wanted.
        }
        this.open.forEach(SseScriptServer::closeQuietly);
    }

    private void accept() {
        while (!this.server.isClosed()) {
            try {
                Socket socket = this.server.accept();
                this.open.add(socket);
                Thread player = new Thread(() -> serve(socket), "sse-script-connection");
                player.setDaemon(true);
                player.start();
            }
            catch (IOException ex) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Request request = readRequest(in);
            if (request == null) {
                return;
            }
            this.requests.add(request);
            Script script = this.scripts.poll();
            Exchange exchange = new Exchange(request, socket, in);
            if (script == null) {
                exchange.json(500, Map.of(), "{\"error\":{\"message\":\"no script left\"}}");
                return;
            }
            script.play(exchange);
            exchange.finish();
        }
        catch (ClientGone ex) {
            this.closedByClient.incrementAndGet();
        }
        catch (IOException ex) {
            // A reset from the client, or the server stopping: an abandoned exchange too.
            if (!this.server.isClosed()) {
                this.closedByClient.incrementAndGet();
            }
        }
        finally {
            this.open.remove(socket);
        }
    }

    /** Reads one HTTP/1.1 request, its body by Content-Length or chunked; null if the client sent none. */
    private static Request readRequest(InputStream in) throws IOException {
        String requestLine = readLine(in);
        if (requestLine == null || requestLine.isEmpty()) {
            return null;
        }
        String[] parts = requestLine.split(" ");
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16); size > 0;
                    size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(size));
                readLine(in);
            }
            readLine(in);
        }
        else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        }
        return new Request(parts[0], parts[1], headers, body.toString(StandardCharsets.UTF_8));
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                if (line.length() == 0) {
                    return null;
                }
                throw new EOFException("The request ended in the middle of a line");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // Gone either way.
        }
    }

    /** The answer to one request, written as the script says. */
    public static final class Exchange {

        private final Request request;

        private final Socket socket;

        private final InputStream in;

        private final OutputStream out;

        private boolean chunked;

        Exchange(Request request, Socket socket, InputStream in) throws IOException {
            this.request = request;
            this.socket = socket;
            this.in = in;
            this.out = socket.getOutputStream();
        }

        /**
         * Returns the request being answered.
         *
         * @return the request
         */
        public Request request() {
            return this.request;
        }

        /**
         * Sends a status line and headers, then a chunked body begins.
         *
         * @param status the status
         * @param headers more headers, such as {@code x-should-retry}
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange head(int status, Map<String, String> headers) throws IOException {
            return head(status, "text/event-stream", headers);
        }

        /**
         * Sends the head of a 200 stream of newline-delimited JSON, as Ollama streams.
         *
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange ndjson() throws IOException {
            return head(200, "application/x-ndjson", Map.of());
        }

        private Exchange head(int status, String contentType, Map<String, String> headers) throws IOException {
            StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(" X\r\n")
                .append("Content-Type: ").append(contentType)
                .append("\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            write(head.append("\r\n").toString());
            this.chunked = true;
            return this;
        }

        /**
         * Sends the head of a 200 event stream.
         *
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange sse() throws IOException {
            return head(200, Map.of());
        }

        /**
         * Sends one event with a name, in its own chunk, flushed.
         *
         * @param event the event's name, such as {@code ping}
         * @param data its data
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange event(String event, String data) throws IOException {
            return chunk("event: " + event + "\ndata: " + data + "\n\n");
        }

        /**
         * Sends one unnamed event.
         *
         * @param data its data, such as an OpenAI chunk or {@code [DONE]}
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange data(String data) throws IOException {
            return chunk("data: " + data + "\n\n");
        }

        /**
         * Sends an SSE comment, a keep-alive.
         *
         * @param text the comment
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange comment(String text) throws IOException {
            return chunk(": " + text + "\n\n");
        }

        /**
         * Sends a line of newline-delimited JSON, as Ollama streams.
         *
         * @param json the line
         * @return this exchange
         * @throws IOException if the client has gone
         */
        public Exchange line(String json) throws IOException {
            return chunk(json + "\n");
        }

        /**
         * Waits, watching the connection: returns once {@code delay} has passed.
         *
         * @param delay the pause
         * @return this exchange
         * @throws ClientGone if the client closes the connection first
         * @throws IOException if the connection fails
         */
        public Exchange pause(Duration delay) throws IOException {
            long end = System.nanoTime() + delay.toNanos();
            for (long left = delay.toNanos(); left > 0; left = end - System.nanoTime()) {
                this.socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
                try {
                    if (this.in.read() < 0) {
                        throw new ClientGone();
                    }
                }
                catch (SocketTimeoutException stillThere) {
                    // The delay passed with the client still there.
                }
            }
            return this;
        }

        /**
         * Sends nothing more until the client closes the connection.
         *
         * @throws ClientGone when it does
         * @throws IOException if the connection fails
         */
        public void hang() throws IOException {
            this.socket.setSoTimeout(0);
            while (this.in.read() >= 0) {
                // Nothing is expected; whatever comes is dropped.
            }
            throw new ClientGone();
        }

        /**
         * Sends a whole JSON answer with its length, and ends the exchange.
         *
         * @param status the status
         * @param headers more headers
         * @param body the body
         * @throws IOException if the client has gone
         */
        public void json(int status, Map<String, String> headers, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(" X\r\n")
                .append("Content-Type: application/json\r\nContent-Length: ").append(bytes.length)
                .append("\r\nConnection: close\r\n");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            write(head.append("\r\n").toString());
            this.out.write(bytes);
            this.out.flush();
        }

        /** Ends a chunked body that the script left open. */
        void finish() throws IOException {
            if (this.chunked) {
                write("0\r\n\r\n");
                this.chunked = false;
            }
        }

        private Exchange chunk(String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            write(Integer.toHexString(bytes.length) + "\r\n");
            this.out.write(bytes);
            write("\r\n");
            return this;
        }

        private void write(String text) throws IOException {
            try {
                this.out.write(text.getBytes(StandardCharsets.UTF_8));
                this.out.flush();
            }
            catch (IOException ex) {
                throw new ClientGone();
            }
        }
    }
}
