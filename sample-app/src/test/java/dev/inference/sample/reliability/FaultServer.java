package dev.inference.sample.reliability;

import dev.inference.sample.Http1;
import java.io.BufferedInputStream;
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
import java.util.List;
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

    private final Function<Http1.Request, Exchange> plan;

    private final List<Http1.Request> requests = new CopyOnWriteArrayList<>();

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private final AtomicInteger accepted = new AtomicInteger();

    /** Guarded by itself; notified whenever a connection ends. */
    private final int[] open = new int[1];

    private final ExecutorService threads;

    private FaultServer(ServerSocket server, Function<Http1.Request, Exchange> plan) {
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
    static FaultServer start(Function<Http1.Request, Exchange> plan) {
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
    List<Http1.Request> requests() {
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
            Http1.Request request = Http1.readRequest(in);
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
        return (connection) -> connection.write(Http1.response(status, headers, body));
    }

    /** Answers 200 with a completion whose content is {@code content}. */
    static Exchange completion(String content) {
        return respond(200, Map.of("Content-Type", "application/json"), Http1.completionJson(content));
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
