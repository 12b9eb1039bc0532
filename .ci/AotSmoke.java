import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CI's Spring AOT check, run as a source file: {@code java .ci/AotSmoke.java <jar>}, where the jar is
 * the sample app built with {@code ./mvnw -pl sample-app -am -Pnative package}. Starts it with
 * {@code -Dspring.aot.enabled=true} on a free loopback port and its embedded provider, then checks
 * that it runs on the bean definitions generated ahead of time and that both of its retried beans
 * still retry: the {@code InferenceClient} behind {@code /chat} and the Spring AI chat model behind
 * {@code /ai/chat}, which answers through the fallback chain {@code chat} that the starter registered
 * ahead of time. The provider draws each request's fate from a fixed seed, so a fresh start
 * answers both on the second attempt, as docs/sample-app.md shows. Exits with 1 and the app's log when
 * anything differs; always stops the app.
 */
public final class AotSmoke {

    private static final Duration STARTUP = Duration.ofSeconds(120);

    private static final Duration REQUEST = Duration.ofSeconds(60);

    private static final Pattern STARTED_ON = Pattern.compile("Tomcat started on port (\\d+)");

    private static final String AOT_STARTED = "Starting AOT-processed SampleApplication";

    /** The fourth request the provider hears: /chat took the first two, /ai/chat's first one failed. */
    private static final String SECOND_ATTEMPT_OF_AI_CHAT = "Embedded provider: request 4 (unary) -> SUCCESS";

    private AotSmoke() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            fail("Usage: java .ci/AotSmoke.java <the sample app's executable jar>");
        }
        Path jar = Path.of(args[0]);
        if (!Files.isRegularFile(jar)) {
            fail("No jar at " + jar + ": build it first with ./mvnw -pl sample-app -am -Pnative package");
        }
        Path log = Files.createTempFile("aot-smoke-", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process app = new ProcessBuilder(java, "-Dspring.aot.enabled=true", "-jar", jar.toString(),
                "--server.address=127.0.0.1", "--server.port=0")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        Thread stopOnExit = new Thread(() -> stop(app), "stop-sample-app");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        boolean passed = false;
        try {
            int port = awaitPort(app, log);
            if (!Files.readString(log).contains(AOT_STARTED)) {
                throw new IllegalStateException("The app did not log '" + AOT_STARTED
                        + "': it did not run on the bean definitions generated ahead of time");
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST).build();
            expect(http, port, "/chat?prompt=Hello", "{\"output\":\"You said: Hello\",\"attempts\":2}");
            expect(http, port, "/ai/chat?prompt=Hello", "{\"output\":\"You said: Hello\",\"model\":\"gpt-4o-mini\"}");
            // The Spring AI answer does not say its attempts; the provider's log does: its second.
            if (!Files.readString(log).contains(SECOND_ATTEMPT_OF_AI_CHAT)) {
                throw new IllegalStateException("The provider did not log '" + SECOND_ATTEMPT_OF_AI_CHAT
                        + "': /ai/chat was not retried");
            }
            passed = true;
            System.out.println("Spring AOT check passed: the AOT-processed sample answered /chat and /ai/chat"
                    + " after a retry each, on port " + port);
        }
        catch (IOException | IllegalStateException ex) {
            System.err.println("Spring AOT check failed: " + ex);
        }
        finally {
            stop(app);
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        }
        if (!passed) {
            System.err.println("--- the app's log (" + log + ") ---");
            System.err.println(Files.readString(log));
            System.exit(1);
        }
        Files.delete(log);
    }

    /** Polls the log, with a deadline, for the port Tomcat listens on. */
    private static int awaitPort(Process app, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher started = STARTED_ON.matcher(Files.readString(log));
            if (started.find()) {
                return Integer.parseInt(started.group(1));
            }
            if (!app.isAlive()) {
                throw new IllegalStateException("The app exited with " + app.exitValue() + " before it listened");
            }
            app.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("The app did not listen within " + STARTUP.toSeconds() + " s");
    }

    private static void expect(HttpClient http, int port, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(REQUEST)
            .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 || !response.body().equals(body)) {
            throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + " "
                    + response.body() + ", expected 200 " + body);
        }
        System.out.println("GET " + path + " -> 200 " + response.body());
    }

    private static void stop(Process app) {
        List<ProcessHandle> descendants = app.descendants().toList();
        app.destroy();
        try {
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            app.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(1);
    }
}
