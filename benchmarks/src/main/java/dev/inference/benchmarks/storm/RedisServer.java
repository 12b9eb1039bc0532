package dev.inference.benchmarks.storm;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} on a free loopback port, keeping nothing on disk, for the storm's Redis
 * store; stopped by {@link #close()} and, should the harness die first, by a shutdown hook.
 *
 * <p>Trap: the port is found free and then handed to the server, so another program could take it in
 * between; the server then exits and {@link #start} fails, unless that program answers {@code PING}.
 */
final class RedisServer implements AutoCloseable {

    private static final Duration READY = Duration.ofSeconds(10);

    private final Process process;

    private final int port;

    private final Thread hook;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
        this.hook = new Thread(process::destroyForcibly, "redis-server-stop");
        Runtime.getRuntime().addShutdownHook(this.hook);
    }

    /**
     * Starts a server and waits until it answers {@code PING}.
     *
     * @param program {@code redis-server}, on the path or as a path
     * @return the running server
     * @throws IllegalStateException if it does not answer within ten seconds
     * @throws UncheckedIOException if it cannot be started
     */
    static RedisServer start(String program) {
        int port = freePort();
        Process process;
        try {
            process = new ProcessBuilder(program, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save",
                    "", "--appendonly", "no")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + program + ": install Redis (redis-server) or name it with --redis-server", ex);
        }
        RedisServer server = new RedisServer(process, port);
        long deadline = System.nanoTime() + READY.toNanos();
        while (!server.pong()) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                server.close();
                throw new IllegalStateException(program + " did not answer PING on port " + port + " within " + READY);
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                server.close();
                throw new IllegalStateException("Interrupted while starting " + program, ex);
            }
        }
        return server;
    }

    /**
     * Returns its port.
     *
     * @return the loopback port it listens on
     */
    int port() {
        return this.port;
    }

    @Override
    public void close() {
        this.process.destroy();
        try {
            if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
                this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            this.process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(this.hook);
        }
        catch (IllegalStateException ex) {
            // Already shutting down: the hook runs anyway, and the process is gone.
        }
    }

    private boolean pong() {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), this.port)) {
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] answer = new byte[7];
            int read = in.readNBytes(answer, 0, answer.length);
            return new String(answer, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot find a free loopback port", ex);
        }
    }
}
