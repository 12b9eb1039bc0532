package dev.inference.retry.cooldown.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.opentest4j.TestAbortedException;

/**
 * A real {@code redis-server} of the test's own, on a free loopback port, with no persistence: never
 * the system's service. Started by {@link #start()}, stopped by {@link #close()}, and killed by a
 * shutdown hook if the JVM ends first.
 *
 * <p>When {@code redis-server} cannot be found, {@link #start()} skips the test with a notice saying
 * how to install it, unless the system property {@value #REQUIRED_PROPERTY} is {@code true} (as
 * {@code .ci/run} sets it), in which case it fails. The system property {@value #SERVER_PROPERTY}
 * names the program: a name looked up on {@code PATH} ({@code redis-server} by default) or a path.
 *
 * <p>Public, and shipped in this module's test jar, so that the sample's cluster tests start their
 * server the same way.
 */
public final class RedisServer implements AutoCloseable {

    static final String REQUIRED_PROPERTY = "inference.retry.redis.required";

    static final String SERVER_PROPERTY = "inference.retry.redis.server";

    private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(20);

    private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final Path program;

    private final Path directory;

    private final int port;

    private final Thread killer = new Thread(this::kill, "redis-server-killer");

    private volatile Process process;

    private RedisServer(Path program, Path directory, int port, Process process) {
        this.program = program;
        this.directory = directory;
        this.port = port;
        this.process = process;
        Runtime.getRuntime().addShutdownHook(this.killer);
    }

    /**
     * Starts a server on a free loopback port and waits until it answers {@code PING}.
     *
     * @return the running server
     * @throws TestAbortedException when there is no {@code redis-server} and it is not
     *     required
     * @throws IllegalStateException when there is none and it is required, or when it does not start
     */
    public static RedisServer start() {
        Path program = locate().orElseThrow(RedisServer::missing);
        Path directory;
        try {
            directory = Files.createTempDirectory("redis-server-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        IllegalStateException failure = null;
        // Another process may take the free port before the server binds it: try a few.
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            Process process = launch(program, directory, port);
            try {
                awaitPing(process, port, directory);
                return new RedisServer(program, directory, port, process);
            }
            catch (IllegalStateException ex) {
                process.destroyForcibly();
                failure = ex;
            }
        }
        deleteQuietly(directory);
        throw failure;
    }

    /**
     * Returns the loopback port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return this.port;
    }

    /** Kills the server as a crash would (SIGKILL), and waits until it is gone. */
    void kill() {
        Process running = this.process;
        running.destroyForcibly();
        try {
            running.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Freezes the server (SIGSTOP), as a stalled host would: connections stay open and new ones are
     * accepted by the kernel, but nothing is answered until {@link #resume()}.
     */
    void pause() {
        signal("STOP");
    }

    /** Lets a server frozen by {@link #pause()} go on (SIGCONT): it answers what it was sent meanwhile. */
    void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).inheritIO().start();
            if (!kill.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("Could not send SIG" + name + " to " + this);
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + name + " to " + this, ex);
        }
    }

    /** Starts the server again on the same port, empty (it keeps nothing), after {@link #kill()}. */
    void restart() {
        if (this.process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + this.port + " is still running");
        }
        Process restarted = launch(this.program, this.directory, this.port);
        this.process = restarted;
        awaitPing(restarted, this.port, this.directory);
    }

    /**
     * Sends one command and returns its reply: a {@code String}, a {@code Long}, a {@code List} of
     * them, or {@code null}.
     */
    Object command(String... arguments) {
        return command(this.port, arguments);
    }

    /** Returns a key's time left in milliseconds, as {@code PTTL} says (-2 when it does not exist). */
    long pttl(String key) {
        return (Long) command("PTTL", key);
    }

    /** Returns the number of clients connected, this query's own connection not counted. */
    int clients() {
        return clientLines(command("CLIENT", "LIST")) - 1;
    }

    /** Returns the number of clients in subscribed mode. */
    int subscribers() {
        return clientLines(command("CLIENT", "LIST", "TYPE", "pubsub"));
    }

    /**
     * Stops the server (SIGTERM, then SIGKILL if it lingers), frozen or not, and deletes its directory.
     */
    @Override
    public void close() {
        Process running = this.process;
        if (running.isAlive()) {
            try {
                // A frozen server would take SIGTERM only once it runs again.
                signal("CONT");
            }
            catch (RuntimeException ex) {
                // It has just exited, or SIGKILL below ends it all the same.
            }
        }
        running.destroy();
        try {
            if (!running.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        }
        catch (InterruptedException ex) {
            kill();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(this.killer);
        }
        catch (IllegalStateException ex) {
            // The JVM is shutting down and runs the hook anyway.
        }
        deleteQuietly(this.directory);
    }

    @Override
    public String toString() {
        return "redis-server on 127.0.0.1:" + this.port;
    }

    private static Optional<Path> locate() {
        String name = System.getProperty(SERVER_PROPERTY, "");
        if (name.isBlank()) {
            name = "redis-server";
        }
        if (name.contains("/")) {
            Path path = Path.of(name);
            return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
        }
        String searchPath = System.getenv("PATH");
        if (searchPath == null) {
            return Optional.empty();
        }
        for (String directory : searchPath.split(File.pathSeparator)) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static RuntimeException missing() {
        String name = System.getProperty(SERVER_PROPERTY, "");
        String looked = (name.isBlank() || !name.contains("/")) ? "on PATH" : "at " + name;
        String notice = "No redis-server found " + looked + ": the tests that need a real Redis cannot run. "
                + "Install Debian's package with `apt-get install -y redis-server`";
        if (Boolean.getBoolean(REQUIRED_PROPERTY)) {
            return new IllegalStateException(notice + " (" + REQUIRED_PROPERTY + "=true makes them mandatory).");
        }
        System.err.println("NOTICE: " + notice + "; they are skipped (-D" + REQUIRED_PROPERTY
                + "=true makes them mandatory, as in CI).");
        return new TestAbortedException(notice + "; skipped.");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Process launch(Path program, Path directory, int port) {
        ProcessBuilder builder = new ProcessBuilder(program.toString(), "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString());
        builder.redirectErrorStream(true);
        builder.redirectOutput(directory.resolve("redis-" + port + ".log").toFile());
        try {
            return builder.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + program, ex);
        }
    }

    private static void awaitPing(Process process, int port, Path directory) {
        long deadline = System.nanoTime() + STARTUP_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with "
                        + process.exitValue() + ": " + log(directory, port));
            }
            try {
                if ("PONG".equals(command(port, "PING"))) {
                    return;
                }
            }
            catch (UncheckedIOException ex) {
                // Not listening yet.
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + STARTUP_DEADLINE + ": " + log(directory, port));
    }

    private static String log(Path directory, int port) {
        try {
            return Files.readString(directory.resolve("redis-" + port + ".log"));
        }
        catch (IOException ex) {
            return "(no log: " + ex + ")";
        }
    }

    private static int clientLines(Object reply) {
        return (int) ((String) reply).lines().filter((line) -> !line.isBlank()).count();
    }

    private static void deleteQuietly(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException ex) {
            // A temporary directory: the system cleans it up eventually.
        }
    }

    // A minimal RESP client, so that the tests check the server through a connection of their own.

    private static Object command(int port, String... arguments) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                    (int) COMMAND_TIMEOUT.toMillis());
            socket.setSoTimeout((int) COMMAND_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(arguments.length).append("\r\n");
            for (String argument : arguments) {
                request.append('$').append(argument.getBytes(UTF_8).length).append("\r\n");
                request.append(argument).append("\r\n");
            }
            out.write(request.toString().getBytes(UTF_8));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bulk = in.readNBytes(length);
                readLine(in);
                return new String(bulk, UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                List<Object> elements = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    elements.add(read(in));
                }
                return elements;
            }
            default:
                throw new IOException("Unexpected reply type " + type + ": " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("Connection closed in a reply");
            }
            line.write(b);
        }
        in.read();
        return line.toString(UTF_8);
    }
}
