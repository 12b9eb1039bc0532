package dev.inference.sample.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.inference.sample.Http1;
import dev.inference.sample.SampleApplication;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The sample app as an operator runs it, in a process of its own with {@code server.shutdown=graceful}
 * and a ten-minute call timeout, stopped with SIGTERM while a call waits out a provider's
 * {@code Retry-After: 300}. The provider is a real HTTP server on 127.0.0.1 whose every answer the test
 * scripts.
 */
@Timeout(120)
class ShutdownIntegrationTests {

    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

    /** What the provider does with each request, in order of arrival. */
    private final BlockingQueue<ProviderAnswer> answers = new LinkedBlockingQueue<>();

    private final AtomicInteger requests = new AtomicInteger();

    private final List<String> output = new CopyOnWriteArrayList<>();

    /** A failure says what the app printed up to it: a shutdown that goes wrong is seen in its log. */
    @RegisterExtension
    final TestExecutionExceptionHandler withTheAppsOutput = (context, thrown) -> {
        thrown.addSuppressed(new AssertionError("The sample app's output:\n" + String.join("\n", this.output)));
        throw thrown;
    };

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final ExecutorService providerThreads = Executors.newCachedThreadPool();

    private HttpServer provider;

    private Process app;

    private URI appUrl;

    @FunctionalInterface
    interface ProviderAnswer {

        void answer(HttpExchange exchange) throws IOException, InterruptedException;
    }

    @BeforeEach
    void startProvider() throws IOException {
        this.provider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        this.provider.setExecutor(this.providerThreads);
        this.provider.createContext("/", (exchange) -> {
            this.requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            ProviderAnswer answer = this.answers.poll();
            try {
                if (answer == null) {
                    respond(exchange, 500, Map.of(), "{\"error\":{\"message\":\"unscripted request\"}}");
                }
                else {
                    answer.answer(exchange);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                exchange.close();
            }
        });
        this.provider.start();
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        if (this.app != null && this.app.isAlive()) {
            this.app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        this.provider.stop(0);
        this.providerThreads.shutdownNow();
    }

    @Test
    void answersAWaitingCallWith503AndExitsWithinTwoSecondsOfSigterm() throws Exception {
        this.answers.add(rateLimitedFor(300));
        startApp();
        CompletableFuture<HttpResponse<String>> waiting = chat("Hello");
        awaitScheduledWaits(1);

        long signalled = System.nanoTime();
        this.app.destroy();
        HttpResponse<String> answer = waiting.get(30, TimeUnit.SECONDS);
        boolean exited = this.app.waitFor(30, TimeUnit.SECONDS);
        Duration toExit = Duration.ofNanos(System.nanoTime() - signalled);

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.body()).contains("\"title\":\"Shutting down\"");
        assertThat(exited).isTrue();
        assertThat(toExit).as("from SIGTERM to the process's exit").isLessThan(Duration.ofSeconds(2));
        assertThat(this.requests).hasValue(1);
    }

    @Test
    void letsACallInFlightAtASlowProviderFinishNormally() throws Exception {
        this.answers.add(rateLimitedFor(300));
        CompletableFuture<Void> slowAnswerStarted = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        this.answers.add((exchange) -> {
            slowAnswerStarted.complete(null);
            // The provider is slow: it answers only once the test says so, after the shutdown began.
            if (release.await(30, TimeUnit.SECONDS)) {
                respond(exchange, 200, Map.of("Content-Type", "application/json"),
                        Http1.completionJson("slow but sure"));
            }
        });
        startApp();
        CompletableFuture<HttpResponse<String>> waiting = chat("Hello");
        awaitScheduledWaits(1);
        CompletableFuture<HttpResponse<String>> inFlight = chat("Hello again");
        slowAnswerStarted.get(30, TimeUnit.SECONDS);

        this.app.destroy();
        HttpResponse<String> waitingAnswer = waiting.get(30, TimeUnit.SECONDS);
        // The waiting call is answered: the shutdown is under way, and the slow call still in flight.
        assertThat(inFlight).isNotDone();
        assertThat(this.app.isAlive()).isTrue();
        release.countDown();
        HttpResponse<String> inFlightAnswer = inFlight.get(30, TimeUnit.SECONDS);

        assertThat(waitingAnswer.statusCode()).isEqualTo(503);
        assertThat(inFlightAnswer.statusCode()).isEqualTo(200);
        assertThat(inFlightAnswer.body()).contains("slow but sure");
        assertThat(this.app.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(this.requests).hasValue(2);
    }

    private static ProviderAnswer rateLimitedFor(int seconds) {
        return (exchange) -> respond(exchange, 429, Map.of("Retry-After", Integer.toString(seconds)),
                "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}");
    }

    private static void respond(HttpExchange exchange, int status, Map<String, String> headers, String body)
            throws IOException {
        headers.forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private void startApp() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        URI providerUrl = URI.create("http://127.0.0.1:" + this.provider.getAddress().getPort());
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SampleApplication.class.getName(), "--server.port=0", "--server.address=127.0.0.1",
                "--server.shutdown=graceful", "--sample.provider.enabled=false",
                "--sample.inference.base-url=" + providerUrl, "--sample.inference.timeout=10m",
                "--spring.main.banner-mode=off")
            .redirectErrorStream(true);
        this.app = builder.start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> readOutput(port), "sample-app-output");
        reader.setDaemon(true);
        reader.start();
        try {
            this.appUrl = URI.create("http://127.0.0.1:" + port.get(90, TimeUnit.SECONDS));
        }
        catch (Exception ex) {
            // Its output comes with the failure, as with every failure here (withTheAppsOutput).
            throw new IllegalStateException("The sample app did not start", ex);
        }
    }

    private void readOutput(CompletableFuture<Integer> port) {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(this.app.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                this.output.add(line);
                Matcher started = STARTED.matcher(line);
                if (started.find()) {
                    port.complete(Integer.parseInt(started.group(1)));
                }
            }
        }
        catch (IOException ex) {
            port.completeExceptionally(ex);
        }
        port.completeExceptionally(new IllegalStateException("The sample app's output ended before it started"));
    }

    private CompletableFuture<HttpResponse<String>> chat(String prompt) {
        HttpRequest request = HttpRequest.newBuilder(this.appUrl.resolve("/chat?prompt=" + prompt.replace(" ", "%20")))
            .build();
        return this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Polls the backoff timer until it has recorded {@code count} waits: then a call is waiting. */
    private void awaitScheduledWaits(int count) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpRequest metric = HttpRequest.newBuilder(this.appUrl.resolve("/actuator/metrics/inference.retry.backoff"))
            .build();
        Pattern recorded = Pattern.compile("\"statistic\":\"COUNT\",\"value\":" + count + "(\\.0)?[,}]");
        while (true) {
            HttpResponse<String> answer = this.http.send(metric, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 200 && recorded.matcher(answer.body()).find()) {
                return;
            }
            assertThat(System.nanoTime()).as("waiting for %d scheduled waits; last answer %s", count, answer.body())
                .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
