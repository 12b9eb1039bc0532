package dev.inference.sample.reliability;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An HTTP/1.1 server on an ephemeral port of 127.0.0.1 that fails on purpose, on plain sockets so
 * that a test controls every byte: resets, clean closes with nothing sent, garbage, broken chunked
 * encoding, held responses, streams cut part-way.
 *
 * <p>Each connection carries one exchange: the server reads the request (recording its body byte
 * for byte), asks its plan what to do, plays that, and then, unless the exchange closed the socket
 * itself, reads until the client closes or resets the connection. So a connection stays open
 * exactly as long as the client holds it, and a client that leaks a response body leaks a
 * connection that {@link #awaitAllConnectionsClosed()} reports.
 *
 * <p>Safety nets, never reached by a passing test: reads time out after {@link #SAFETY_TIMEOUT},
 * held exchanges give up after the same time, and the accept loop stops after
 * {@link #MAX_CONNECTIONS} connections or on {@link #close()}, which also drops every connection.
 */
final class FaultServer implements AutoCloseable {

    /** The longest a connection or a held exchange waits for the client or the test. */
    static final Duration SAFETY_TIMEOUT = Duration.ofSeconds(30);

    /** More connections than any test makes: a client stuck in a retry loop cannot run forever. */
    static final int MAX_CONNECTIONS = 20_000;

    /** Enough for a thousand clients connecting at once; the platform's default is 50. */
    private static final int BACKLOG = 2048;

    /** What the server does once it has read a request. */
    @FunctionalInterface
    interface Exchange {

        void play(Connection connection) throws IOException;
    }

    /** A request as the server read it. */
    record Received(String method, String path, Map<String, String> headers, byte[] body) {

        String bodyText() {
            return new String(this.body, StandardCharsets.UTF_8);
        }
    }

    /** One accepted connection, after its request was read. */
    static final class Connection {

        private final Socket socket;

        private final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        void write(String text) throws IOException {
            write(text.getBytes(StandardCharsets.UTF_8));
        }

        void write(byte[] bytes) throws IOException {
            this.out.write(bytes);
            this.out.flush();
        }

        /** Closes the connection with a reset: the client sees "connection reset", not an end. */
        void reset() throws IOException {
            this.socket.setSoLinger(true, 0);
            this.socket.close();
        }

        /** Closes the connection cleanly. */
        void close() throws IOException {
            this.socket.close();
        }
    }

    private final ServerSocket server;

    private final Function<Received, Exchange> plan;

    private final List<Received> requests = new CopyOnWriteArrayList<>();

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private final AtomicInteger accepted = new AtomicInteger();

    /** Guarded by itself; notified whenever a connection ends. */
    private final int[] open = new int[1];

    private final ExecutorService threads;

    private FaultServer(ServerSocket server, Function<Received, Exchange> plan) {
        this.server = server;
        this.plan = plan;
        AtomicInteger count = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, "fault-server-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.threads.execute(this::accept);
    }

    /**
     * Starts a server that answers each request with the exchange its plan picks.
     *
     * @param plan picks the exchange for each request, called from the connection's thread
     * @return the running server
     */
    static FaultServer start(Function<Received, Exchange> plan) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
            return new FaultServer(server, plan);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Starts a server that plays the given exchanges in order, one per request, and resets every
     * connection after they run out.
     */
    static FaultServer scripted(Exchange... exchanges) {
        Queue<Exchange> script = new ConcurrentLinkedQueue<>(List.of(exchanges));
        return start((request) -> {
            Exchange next = script.poll();
            return (next != null) ? next : Connection::reset;
        });
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + this.server.getLocalPort());
    }

    /** The requests read so far, in the order they were read. */
    List<Received> requests() {
        return List.copyOf(this.requests);
    }

    int requestCount() {
        return this.requests.size();
    }

    /**
     * Waits until no connection is open, or the safety timeout passes.
     *
     * @return the number of connections still open: 0 unless a client leaked one
     */
    int awaitAllConnectionsClosed() throws InterruptedException {
        long deadline = System.nanoTime() + SAFETY_TIMEOUT.toNanos() / 2;
        synchronized (this.open) {
            long left;
            while (this.open[0] > 0 && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this.open, left);
            }
            return this.open[0];
        }
    }

    private void accept() {
        while (!this.server.isClosed() && this.accepted.get() < MAX_CONNECTIONS) {
            Socket socket;
            try {
                socket = this.server.accept();
            }
            catch (IOException ex) {
                return;
            }
            this.accepted.incrementAndGet();
            synchronized (this.open) {
                this.open[0]++;
            }
            this.sockets.add(socket);
            this.threads.execute(() -> serve(socket));
        }
        closeQuietly(this.server);
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setSoTimeout((int) SAFETY_TIMEOUT.toMillis());
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Received request = readRequest(in);
            if (request != null) {
                this.requests.add(request);
                this.plan.apply(request).play(new Connection(socket));
            }
            if (!socket.isClosed()) {
                while (in.read() >= 0) {
                    // Whatever the client still sends; the exchange is over once it closes.
                }
            }
        }
        catch (IOException ex) {
            // A reset or a close by either side ends the exchange as well.
        }
        finally {
            this.sockets.remove(socket);
            synchronized (this.open) {
                this.open[0]--;
                this.open.notifyAll();
            }
        }
    }

    /** Reads one request, or returns {@code null} if the client closed before sending any byte. */
    private static Received readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new IOException("The client closed the connection inside the request head");
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : ((b == '\r') ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).strip());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("The client closed the connection inside the request body");
        }
        return new Received(requestLine[0], requestLine[1], headers, body);
    }

    /** Stops accepting and drops every connection still open. */
    @Override
    public void close() {
        closeQuietly(this.server);
        this.sockets.forEach(FaultServer::closeQuietly);
        this.threads.shutdownNow();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // Stopping: nothing more to release.
        }
    }

    // The exchanges the tests are made of.

    /** Answers with a status, headers and a body announced by its length, then waits for the client. */
    static Exchange respond(int status, Map<String, String> headers, String body) {
        return (connection) -> connection.write(response(status, headers, body));
    }

    static String response(int status, Map<String, String> headers, String body) {
        StringBuilder response = new StringBuilder("HTTP/1.1 " + status + " Status\r\n");
        headers.forEach((name, value) -> response.append(name).append(": ").append(value).append("\r\n"));
        response.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        response.append("Connection: close\r\n\r\n").append(body);
        return response.toString();
    }

    /** Answers 200 with a completion whose content is {@code content}. */
    static Exchange completion(String content) {
        return respond(200, Map.of("Content-Type", "application/json"),
                "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                        + "{\"role\":\"assistant\",\"content\":\"" + content + "\"},\"finish_reason\":\"stop\"}]}");
    }

    /** Streams one chunk per piece of content and {@code [DONE]}, then waits for the client. */
    static Exchange stream(String... contents) {
        return (connection) -> {
            connection.write(SSE_HEAD);
            for (String content : contents) {
                connection.write(chunk(content));
            }
            connection.write("data: [DONE]\n\n");
        };
    }

    /** Closes the connection without sending a byte. */
    static Exchange empty() {
        return Connection::close;
    }

    /** Sends {@code length} seeded random bytes, then closes. */
    static Exchange garbage(long seed, int length) {
        return (connection) -> {
            byte[] bytes = new byte[length];
            new SplittableRandom(seed).nextBytes(bytes);
            connection.write(bytes);
            connection.close();
        };
    }

    /** The head of a 200 server-sent events response, delimited by the connection's close. */
    static final String SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

    /** One server-sent event whose data is a chunk with {@code content} as its delta. */
    static String chunk(String content) {
        return "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + content + "\"},\"finish_reason\":null}]}\n\n";
    }

    /**
     * Holds exchanges until the test opens it: each held exchange is counted, then waits, then
     * plays what it was given.
     */
    static final class Gate {

        private final CountDownLatch opened = new CountDownLatch(1);

        private final AtomicInteger held = new AtomicInteger();

        private final Object arrivals = new Object();

        Exchange hold(Exchange then) {
            return (connection) -> {
                synchronized (this.arrivals) {
                    this.held.incrementAndGet();
                    this.arrivals.notifyAll();
                }
                try {
                    this.opened.await(SAFETY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
                catch (InterruptedException ex) {
                    // The server is stopping.
                    Thread.currentThread().interrupt();
                    return;
                }
                then.play(connection);
            };
        }

        /** How many exchanges have reached the gate. */
        int held() {
            return this.held.get();
        }

        /** Waits until {@code count} exchanges have reached the gate, or the safety timeout passes. */
        int awaitHeld(int count) throws InterruptedException {
            long deadline = System.nanoTime() + SAFETY_TIMEOUT.toNanos() / 2;
            synchronized (this.arrivals) {
                long left;
                while (this.held.get() < count && (left = deadline - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.timedWait(this.arrivals, left);
                }
                return this.held.get();
            }
        }

        /** Lets every held exchange, and every one still to come, go on. */
        void open() {
            this.opened.countDown();
        }
    }
}
