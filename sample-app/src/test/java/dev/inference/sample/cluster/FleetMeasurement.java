package dev.inference.sample.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Measures what reading the rate-limit headers does for a fleet: three sample instances, each its own
 * process ({@code java -jar} of the sample's jar), share one real {@code redis-server} and one
 * provider in its rate-limited mode (20 requests per 2-second window, run by the first instance), and
 * take a steady load of 1.5 times the limit for 20 seconds, spread evenly over them. Each
 * configuration runs twice, once with the headers read and once with
 * {@code inference.retry.cooldown.rate-limit-headers=false}, on fresh processes and a fresh Redis; the
 * provider's answers are counted from its log, the instances' cool-downs from their meters.
 *
 * <p>Not a test: a documented command (see {@code docs/cooldown.md}), which prints a Markdown table.
 * Every socket is on 127.0.0.1; every process it starts, it stops, by its handle. Run from the
 * repository's root with Java 17 or later, after packaging the sample:
 * <pre>
 * java sample-app/src/test/java/dev/inference/sample/cluster/FleetMeasurement.java [jar] [deadline ...] [--property=value ...]
 * </pre>
 * where each deadline (such as {@code 1s}, the default, or {@code 30s}) is a {@code /chat} deadline,
 * {@code sample.inference.timeout}, to measure with, and each {@code --property=value} is given to every
 * instance, such as {@code --inference.retry.cooldown.release-spread=1s}.
 */
public final class FleetMeasurement {

    private static final int INSTANCES = 3;

    private static final int LIMIT = 20;

    private static final Duration WINDOW = Duration.ofSeconds(2);

    /** 1.5 times the limit: 15 calls a second, 5 per instance. */
    private static final double CALLS_PER_SECOND = 1.5 * LIMIT / WINDOW.toSeconds();

    private static final Duration LOAD = Duration.ofSeconds(20);

    private static final Duration STARTUP = Duration.ofSeconds(120);

    private static final Pattern MEASUREMENT = Pattern.compile("\"value\":([0-9.Ee+-]+)");

    private final Path jar;

    private final Path work;

    private final HttpClient http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .executor(Executors.newCachedThreadPool(FleetMeasurement::daemon))
        .build();

    private final List<Process> started = new ArrayList<>();

    private FleetMeasurement(Path jar, Path work) {
        this.jar = jar;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of((args.length > 0) ? args[0] : "sample-app/target/sample-app-0.1.0-SNAPSHOT.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("No sample jar at " + jar + ": build it with "
                    + "./mvnw -B -ntp -pl sample-app -am package -DskipTests, or give its path as the first argument");
        }
        List<Duration> deadlines = new ArrayList<>();
        List<String> settings = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                settings.add(args[i]);
            }
            else {
                deadlines.add(Duration.parse("PT" + args[i].toUpperCase(Locale.ROOT)));
            }
        }
        if (deadlines.isEmpty()) {
            deadlines.add(Duration.ofSeconds(1));
        }
        Path work = Files.createTempDirectory("fleet-measurement");
        System.out.println("Logs in " + work + ((settings.isEmpty()) ? "" : "; every instance with " + settings));
        List<String> rows = new ArrayList<>();
        for (Duration deadline : deadlines) {
            Result read = run(jar, work, deadline, true, settings);
            Result ignored = run(jar, work, deadline, false, settings);
            rows.add(read.row(ignored));
            rows.add(ignored.row(read));
            System.out.println(rows.get(rows.size() - 2));
            System.out.println(rows.get(rows.size() - 1));
        }
        System.out.println();
        System.out.println("| /chat deadline | rate-limit headers | provider's 429s | provider's successes | calls answered "
                + "200 | calls failed (504 deadline, 503 exhausted, other) | failed here, answered in the other run "
                + "| cool-downs set (rate_limit, retry_after) | attempts a cool-down delayed |");
        System.out.println("|---|---|---:|---:|---:|---|---:|---|---:|");
        rows.forEach(System.out::println);
    }

    private static Result run(Path jar, Path work, Duration deadline, boolean headers, List<String> settings)
            throws Exception {
        FleetMeasurement run = new FleetMeasurement(jar, work.resolve(deadline + "-" + headers));
        try {
            return run.measure(deadline, headers, settings);
        }
        finally {
            run.stopAll();
        }
    }

    private Result measure(Duration deadline, boolean headers, List<String> settings) throws Exception {
        Files.createDirectories(this.work);
        int redis = freePort();
        int provider = freePort();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            ports.add(freePort());
        }
        Process redisServer = start("redis", List.of("redis-server", "--port", Integer.toString(redis), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no"));
        awaitRedis(redisServer, redis);
        List<Process> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            List<String> command = new ArrayList<>(List.of(javaCommand(), "-Xmx384m", "-XX:+UseSerialGC", "-jar",
                    this.jar.toString(), "--server.port=" + ports.get(i), "--server.address=127.0.0.1",
                    "--spring.main.banner-mode=off", "--inference.retry.cooldown.store=redis",
                    "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis,
                    "--inference.retry.cooldown.rate-limit-headers=" + headers, "--sample.inference.timeout=" + deadline));
            command.addAll(settings);
            if (i == 0) {
                command.addAll(List.of("--sample.provider.port=" + provider,
                        "--sample.provider.rate-limit.requests=" + LIMIT, "--sample.provider.rate-limit.window=" + WINDOW));
            }
            else {
                command.add("--sample.inference.base-url=http://127.0.0.1:" + provider);
            }
            instances.add(start("instance-" + i, command));
        }
        for (int i = 0; i < INSTANCES; i++) {
            awaitHealthy(instances.get(i), ports.get(i));
        }
        int[] statuses = load(ports, deadline);
        Result result = new Result(deadline, headers, count(log("instance-0"), "-> RATE_LIMITED"),
                count(log("instance-0"), "-> SUCCESS"), statuses,
                sum(ports, "inference.retry.cooldown.set?tag=client:openai&tag=reason:rate_limit"),
                sum(ports, "inference.retry.cooldown.set?tag=client:openai&tag=reason:retry_after"),
                sum(ports, "inference.retry.cooldown.waits?tag=client:openai"));
        long attempts429 = sum(ports, "inference.retry.attempts?tag=client:openai&tag=error:http_429");
        long attemptsOk = sum(ports, "inference.retry.attempts?tag=client:openai&tag=outcome:success");
        if (attempts429 != result.provider429s() || attemptsOk != result.providerSuccesses()) {
            System.out.println("Note: the instances' meters count " + attempts429 + " 429s and " + attemptsOk
                    + " successes, the provider's log " + result.provider429s() + " and " + result.providerSuccesses());
        }
        return result;
    }

    /**
     * Sends the calls, evenly spaced and in turn over the instances, the first 100 ms into one of the
     * provider's windows (which are aligned to the wall clock), so that call k meets the same point of
     * the same window in every run; returns each call's status, -1 for none.
     */
    private int[] load(List<Integer> ports, Duration deadline) throws Exception {
        int calls = (int) Math.round(CALLS_PER_SECOND * LOAD.toSeconds());
        long spacing = Math.round(1_000_000_000L / CALLS_PER_SECOND);
        int[] statuses = new int[calls];
        List<CompletableFuture<?>> answers = new ArrayList<>();
        long window = WINDOW.toMillis();
        long now = System.currentTimeMillis();
        long first = (now / window + 1) * window + 100 - now;
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(FleetMeasurement::daemon);
        try {
            for (int k = 0; k < calls; k++) {
                int call = k;
                URI uri = URI.create("http://127.0.0.1:" + ports.get(k % ports.size()) + "/chat?prompt=call-" + k);
                CompletableFuture<Void> answer = new CompletableFuture<>();
                answers.add(answer);
                clock.schedule(() -> this.http.sendAsync(HttpRequest.newBuilder(uri)
                    .timeout(deadline.plusSeconds(30))
                    .GET()
                    .build(), HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
                        statuses[call] = (response != null) ? response.statusCode() : -1;
                        answer.complete(null);
                    }), TimeUnit.MILLISECONDS.toNanos(first) + k * spacing, TimeUnit.NANOSECONDS);
            }
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .get(LOAD.plus(deadline).plusSeconds(60).toSeconds(), TimeUnit.SECONDS);
        }
        finally {
            clock.shutdownNow();
        }
        return statuses;
    }

    private long sum(List<Integer> ports, String meter) throws Exception {
        long total = 0;
        for (int port : ports) {
            HttpResponse<String> response = this.http.send(HttpRequest
                .newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/metrics/" + meter))
                .timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
            Matcher value = MEASUREMENT.matcher(response.body());
            if (response.statusCode() == 200 && value.find()) {
                total += Math.round(Double.parseDouble(value.group(1)));
            }
        }
        return total;
    }

    private Process start(String name, List<String> command) throws IOException {
        Path log = this.work.resolve(name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        this.started.add(process);
        return process;
    }

    /**
     * Waits before the next try at a process that is starting, and gives up at once when the process has
     * exited meanwhile: then it will never answer.
     */
    private static void pauseUnlessExited(Process process, Duration pause, String what) throws InterruptedException {
        if (process.waitFor(pause.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("The " + what + " exited with " + process.exitValue()
                    + " before it answered; see its log");
        }
    }

    private Path log(String name) {
        return this.work.resolve(name + ".log");
    }

    /** Stops every process this run started, newest first: SIGTERM, then, after 30 s, SIGKILL. */
    private void stopAll() throws InterruptedException {
        for (int i = this.started.size() - 1; i >= 0; i--) {
            Process process = this.started.get(i);
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        this.started.clear();
    }

    private void awaitHealthy(Process instance, int port) throws Exception {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        URI health = URI.create("http://127.0.0.1:" + port + "/actuator/health");
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(health)
                    .timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().contains("\"UP\"")) {
                    return;
                }
            }
            catch (IOException notYet) {
                // not listening yet
            }
            pauseUnlessExited(instance, Duration.ofMillis(250), "instance on port " + port);
        }
        throw new IllegalStateException("The instance on port " + port + " did not start within " + STARTUP
                + "; see the logs in " + this.work);
    }

    private static void awaitRedis(Process redisServer, int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                OutputStream out = socket.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                if (new String(in.readNBytes(7), StandardCharsets.US_ASCII).startsWith("+PONG")) {
                    return;
                }
            }
            catch (IOException notYet) {
                // not listening yet
            }
            pauseUnlessExited(redisServer, Duration.ofMillis(100), "redis-server");
        }
        throw new IllegalStateException("redis-server did not answer on port " + port);
    }

    private static long count(Path log, String marker) throws IOException {
        try (var lines = Files.lines(log)) {
            return lines.filter((line) -> line.contains("Embedded provider: request") && line.contains(marker)).count();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Thread daemon(Runnable task) {
        Thread thread = new Thread(task, "fleet-measurement");
        thread.setDaemon(true);
        return thread;
    }

    /** What one run counted; {@code statuses} holds each call's status, in the order sent. */
    private record Result(Duration deadline, boolean headers, long provider429s, long providerSuccesses,
            int[] statuses, long rateLimitCooldowns, long retryAfterCooldowns, long delayed) {

        long count(int status) {
            return Arrays.stream(this.statuses).filter((each) -> each == status).count();
        }

        /** The row of the table, with the calls that failed here but were answered in the other run. */
        String row(Result other) {
            long ok = count(200);
            long deadlines = count(504);
            long exhausted = count(503);
            long failed = this.statuses.length - ok;
            long onlyHere = IntStream.range(0, this.statuses.length)
                .filter((k) -> this.statuses[k] != 200 && other.statuses[k] == 200)
                .count();
            return "| " + this.deadline.toString().substring(2).toLowerCase(Locale.ROOT) + " | "
                    + (this.headers ? "read" : "`false`") + " | " + this.provider429s + " | " + this.providerSuccesses
                    + " | " + ok + " | " + failed + " (" + deadlines + ", " + exhausted + ", "
                    + (failed - deadlines - exhausted) + ") | " + onlyHere + " | " + this.rateLimitCooldowns + ", "
                    + this.retryAfterCooldowns + " | " + this.delayed + " |";
        }
    }
}
