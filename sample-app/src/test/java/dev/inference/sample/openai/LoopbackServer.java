package dev.inference.sample.openai;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A test HTTP server on 127.0.0.1 whose every connection plays the next queued {@link Script}, so a
 * test decides byte by byte what the client sees: a response, a reset, a stall, a cut body.
 */
final class LoopbackServer implements AutoCloseable {

    /** What the server does with one connection. */
    @FunctionalInterface
    interface Script {

        void play(Connection connection) throws IOException;
    }

    /** One accepted connection. */
    final class Connection {

        private final Socket socket;

        private final InputStream in;

        private final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        /** Reads the request and records it. */
        Http1.Request readRequest() throws IOException {
            Http1.Request received = Http1.readRequest(this.in);
            if (received == null) {
                throw new IOException("The client closed the connection before sending a request");
            }
            LoopbackServer.this.requests.add(received);
            LoopbackServer.this.arrivals.add(received);
            return received;
        }

        void write(String text) throws IOException {
            this.out.write(text.getBytes(StandardCharsets.UTF_8));
            this.out.flush();
        }

        /** Blocks until the client closes or resets the connection. */
        void awaitClientClose() throws IOException {
            try {
                while (this.in.read() >= 0) {
                    // discard
                }
            }
            catch (IOException ex) {
                // a reset from the client is a close too
            }
        }

        /** Resets the connection: the client sees "connection reset", not a clean end. */
        void reset() throws IOException {
            this.socket.setSoLinger(true, 0);
            this.socket.close();
        }
    }

    private final ServerSocket server;

    private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();

    private final List<Http1.Request> requests = new CopyOnWriteArrayList<>();

    private final BlockingQueue<Http1.Request> arrivals = new LinkedBlockingQueue<>();

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private LoopbackServer(ServerSocket server) {
        this.server = server;
        Thread acceptor = new Thread(this::accept, "loopback-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static LoopbackServer start() {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new LoopbackServer(server);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + this.server.getLocalPort());
    }

    /** Queues what the next connection does. */
    void enqueue(Script script) {
        this.scripts.add(script);
    }

    /** The requests read so far. */
    List<Http1.Request> requests() {
        return List.copyOf(this.requests);
    }

    /** Blocks until the next request has been read. */
    Http1.Request takeRequest() throws InterruptedException {
        return this.arrivals.take();
    }

    private void accept() {
        while (!this.server.isClosed()) {
            try {
                Socket socket = this.server.accept();
                this.sockets.add(socket);
                Script script = this.scripts.poll();
                Thread player = new Thread(() -> play(socket, script), "loopback-connection");
                player.setDaemon(true);
                player.start();
            }
            catch (IOException ex) {
                return;
            }
        }
    }

    private void play(Socket socket, Script script) {
        try (socket) {
            if (script != null) {
                script.play(new Connection(socket));
            }
        }
        catch (IOException ex) {
            // the client went away: nothing left to play
        }
    }

    @Override
    public void close() throws IOException {
        this.server.close();
        for (Socket socket : this.sockets) {
            socket.close();
        }
    }

    // Scripts used by many tests.

    /** Answers with a status, headers and a body, then closes. */
    static Script respond(int status, Map<String, String> headers, String body) {
        return (connection) -> {
            connection.readRequest();
            connection.write(Http1.response(status, headers, body));
        };
    }

    /** Answers 200 with a completion whose content is {@code content}. */
    static Script completion(String content) {
        return respond(200, Map.of("Content-Type", "application/json"), Http1.completionJson(content));
    }

    /** The head of a 200 server-sent events response, delimited by the connection's close. */
    static final String SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

    /** One server-sent event whose data is a chunk with {@code content} as its delta. */
    static String chunk(String content) {
        return "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + content + "\"},\"finish_reason\":null}]}\n\n";
    }

    static final String DONE = "data: [DONE]\n\n";
}
