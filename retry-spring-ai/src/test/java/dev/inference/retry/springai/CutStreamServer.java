package dev.inference.retry.springai;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider on a loopback port that starts every stream and then drops the connection: it answers
 * each request with status 200 and one event (a server-sent event unless told otherwise), then resets
 * the connection. WireMock cannot cut a response after content has begun, so this test server does it
 * with a plain socket.
 */
public final class CutStreamServer implements AutoCloseable {

    private final ServerSocket socket;

    private final String firstEvent;

    private final String contentType;

    private final AtomicInteger requests = new AtomicInteger();

    private final Thread acceptor;

    public CutStreamServer(String firstEvent) throws IOException {
        this(firstEvent, "text/event-stream");
    }

    public CutStreamServer(String firstEvent, String contentType) throws IOException {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.firstEvent = firstEvent;
        this.contentType = contentType;
        this.acceptor = new Thread(this::serve, "cut-stream-server");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    public int port() {
        return this.socket.getLocalPort();
    }

    public int requests() {
        return this.requests.get();
    }

    private void serve() {
        while (!this.socket.isClosed()) {
            try (Socket connection = this.socket.accept()) {
                readRequest(connection.getInputStream());
                this.requests.incrementAndGet();
                OutputStream out = connection.getOutputStream();
                byte[] event = this.firstEvent.getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + this.contentType
                        + "\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(event.length) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
                out.write(event);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                // A reset, not an orderly end: the chunked body never gets its last chunk.
                connection.setSoLinger(true, 0);
            }
            catch (SocketException closed) {
                return;
            }
            catch (IOException ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    /** Reads the request head and as many body bytes as its Content-Length says. */
    private static void readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("The request ended before its head did");
            }
            head.write(b);
        }
        long length = 0;
        for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).trim());
            }
        }
        in.readNBytes((int) length);
    }

    @Override
    public void close() throws IOException {
        this.socket.close();
    }
}
