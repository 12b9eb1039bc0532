package dev.inference.sample.reliability;

import static dev.inference.sample.reliability.FaultServer.SSE_HEAD;
import static dev.inference.sample.reliability.FaultServer.chunk;
import static dev.inference.sample.reliability.FaultServer.completion;
import static dev.inference.sample.reliability.FaultServer.respond;
import static dev.inference.sample.reliability.FaultServer.stream;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.StreamReader;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.RetrierCustomizer;
import dev.inference.sample.Http1;
import dev.inference.sample.NoJitter;
import dev.inference.sample.openai.OpenAiCompatibleClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Many calls at once through the auto-configured {@link RetryClient} and its Micrometer listener,
 * against a {@link FaultServer} whose faults are drawn with a seeded generator: every call ends,
 * the meters agree exactly with what the server saw, and cancelling parked calls ends each of them
 * without another request.
 */
// Safety nets against a deadlock, never timing assertions: the tests take a few seconds.
@Timeout(120)
class ConcurrencyTests {

    private static final int CALLS = 1000;

    private static final int THREADS = 64;

    /** Calls parked at once for the cancellation test: one per pool thread, so that all are in flight. */
    private static final int PARKED_CALLS = THREADS;

    /** The longest any wait for the calls may take before the test fails instead of hanging. */
    private static final long SAFETY_SECONDS = 60;

    private static final String MODEL = "gpt-test";

    private static final Pattern INPUT = Pattern.compile("\"content\":\"(call-[0-9]+)\"");

    private ExecutorService threads;

    private FaultServer server;

    private TrackingClient tracking;

    @BeforeEach
    void startThreads() {
        this.threads = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        this.threads.shutdownNow();
        assertThat(this.threads.awaitTermination(SAFETY_SECONDS, TimeUnit.SECONDS)).isTrue();
        if (this.server != null) {
            this.server.close();
        }
    }

    private ApplicationContextRunner application(String... policy) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                        InferenceRetryMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withBean("faulty", InferenceClient.class, () -> this.tracking)
                .withPropertyValues(policy);
    }

    private void serve(Function<Http1.Request, FaultServer.Exchange> plan) {
        this.server = FaultServer.start(plan);
        this.tracking = new TrackingClient(OpenAiCompatibleClient.builder(this.server.baseUrl()).build());
    }

    private static String inputOf(Http1.Request request) {
        Matcher input = INPUT.matcher(request.bodyText());
        assertThat(input.find()).as("a call's input in %s", request.bodyText()).isTrue();
        return input.group(1);
    }

    private static boolean isStream(Http1.Request request) {
        return request.bodyText().endsWith("\"stream\":true}");
    }

    private static double sum(MeterRegistry registry, String name) {
        return sum(registry.find(name));
    }

    /** The sum of the counters found, 0 when there is none. */
    private static double sum(Search search) {
        return search.counters().stream().mapToDouble(Counter::count).sum();
    }

    /** How one call ended, as its caller saw it. */
    private record Ended(String input, int attempts, Class<? extends Throwable> failure) {
    }

    /** Makes one call, unary for even numbers and streamed for odd ones, and reads it to its end. */
    private static Ended call(InferenceClient client, int number) {
        String input = "call-" + number;
        InferenceRequest request = InferenceRequest.of(MODEL, input);
        try {
            if (number % 2 == 0) {
                return new Ended(input, client.invoke(request, CallContext.background()).attempts(), null);
            }
            try (StreamReader reader = client.stream(request, CallContext.background())) {
                try {
                    while (reader.hasNext()) {
                        reader.next();
                    }
                }
                catch (NetworkException cutUnderWay) {
                    // Established, then cut: final, and still the attempts that established it.
                }
                return new Ended(input, reader.result().attempts(),
                        reader.result().failure().<Class<? extends Throwable>>map(RuntimeException::getClass)
                                .orElse(null));
            }
        }
        catch (ExhaustedException ex) {
            return new Ended(input, ex.attempts(), ExhaustedException.class);
        }
    }

    @Test
    void aThousandCallsOnAPoolOfThreadsAllEndAndTheMetersMatchTheServer() throws Exception {
        aThousandCallsWithSeededFaults(this.threads);
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void aThousandCallsOnVirtualThreadsAllEndAndTheMetersMatchTheServer() throws Exception {
        ExecutorService virtual = virtualThreads();
        try {
            aThousandCallsWithSeededFaults(virtual);
        }
        finally {
            virtual.shutdownNow();
        }
    }

    /** A thread per task, virtual; compiled for Java 17, so the Java 21 factory is looked up. */
    private static ExecutorService virtualThreads() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    private void aThousandCallsWithSeededFaults(ExecutorService executor) throws Exception {
        SplittableRandom random = new SplittableRandom(20261129);
        serve((request) -> {
            int draw;
            synchronized (random) {
                draw = random.nextInt(100);
            }
            boolean stream = isStream(request);
            if (draw < 45) {
                return stream ? stream("ok") : completion("ok");
            }
            if (draw < 60) {
                return respond(503, Map.of(), "");
            }
            if (draw < 70) {
                return respond(429, Map.of("retry-after-ms", "5"), "");
            }
            if (draw < 80) {
                return FaultServer.Connection::reset;
            }
            if (draw < 85) {
                return FaultServer.empty();
            }
            if (draw < 90) {
                return FaultServer.garbage(draw, 64);
            }
            if (draw < 95) {
                return stream ? (connection) -> connection.write(SSE_HEAD + "data: {oops\n\n")
                        : respond(200, Map.of(), "{oops");
            }
            // A stream cut after its first chunk fails under way; a unary answer is cut short.
            return stream ? (connection) -> {
                connection.write(SSE_HEAD + chunk("o"));
                connection.close();
            } : (connection) -> {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"cho");
                connection.close();
            };
        });
        RetrierCustomizer virtualTime = (name, builder) -> builder
                .random(NoJitter.INSTANCE)
                .sleeper((delay, context) -> { });

        application("inference.retry.stable-retries=1", "inference.retry.stable-delay=10ms",
                "inference.retry.max-attempts=3", "inference.retry.max-delay=100ms")
                .withBean(RetrierCustomizer.class, () -> virtualTime)
                .run((context) -> {
                    InferenceClient client = context.getBean(InferenceClient.class);
                    assertThat(client).isInstanceOf(RetryClient.class);
                    List<CompletableFuture<Ended>> calls = new ArrayList<>();
                    for (int i = 0; i < CALLS; i++) {
                        int number = i;
                        calls.add(CompletableFuture.supplyAsync(() -> call(client, number), executor));
                    }
                    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                            .get(SAFETY_SECONDS, TimeUnit.SECONDS);
                    List<Ended> ended = calls.stream().map(CompletableFuture::join).toList();

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    long exhausted = ended.stream().filter((end) -> end.failure() == ExhaustedException.class).count();
                    assertThat(exhausted).isPositive();
                    assertThat(ended).filteredOn((end) -> end.failure() == null).isNotEmpty();
                    assertThat(ended).filteredOn((end) -> end.failure() == NetworkException.class).isNotEmpty();
                    assertThat(sum(registry, "inference.retry.attempts")).isEqualTo(this.server.requestCount());
                    assertThat(sum(registry, "inference.retry.exhausted")).isEqualTo(exhausted);
                    // Each call sent the same bytes once per attempt it reports, and not once more.
                    Map<String, List<String>> bodiesPerCall = this.server.requests().stream().collect(
                            Collectors.groupingBy(ConcurrencyTests::inputOf,
                                    Collectors.mapping(Http1.Request::bodyText, Collectors.toList())));
                    assertThat(bodiesPerCall).hasSize(CALLS)
                            .allSatisfy((input, bodies) -> assertThat(bodies).containsOnly(bodies.get(0)));
                    assertThat(bodiesPerCall.entrySet().stream().collect(
                            Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().size())))
                            .isEqualTo(ended.stream().collect(Collectors.toMap(Ended::input, Ended::attempts)));
                });
        assertNothingLeaked();
    }

    @Test
    void cancellingCallsParkedOnAPoolOfThreadsEndsEachWithoutAnotherRequest() throws Exception {
        cancellingParkedCalls(this.threads);
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void cancellingCallsParkedOnVirtualThreadsEndsEachWithoutAnotherRequest() throws Exception {
        ExecutorService virtual = virtualThreads();
        try {
            cancellingParkedCalls(virtual);
        }
        finally {
            virtual.shutdownNow();
        }
    }

    private void cancellingParkedCalls(ExecutorService executor) throws Exception {
        FaultServer.Gate gate = new FaultServer.Gate();
        // Counted down by each call as the server holds it or as it starts waiting out its backoff.
        CountDownLatch parked = new CountDownLatch(PARKED_CALLS);
        SplittableRandom random = new SplittableRandom(4242);
        serve((request) -> {
            boolean hold;
            synchronized (random) {
                hold = random.nextBoolean();
            }
            if (hold) {
                FaultServer.Exchange held = gate.hold(isStream(request) ? stream("late") : completion("late"));
                return (connection) -> {
                    parked.countDown();
                    held.play(connection);
                };
            }
            return respond(503, Map.of(), "");
        });
        RetryListener waits = new RetryListener() {

            @Override
            public void retryScheduled(AttemptEvent failed, Duration delay) {
                parked.countDown();
            }
        };

        // Real waits of about an hour: only the cancellation can end them.
        application("inference.retry.stable-retries=1", "inference.retry.stable-delay=1h",
                "inference.retry.max-attempts=3", "inference.retry.max-delay=1h")
                .withBean(RetryListener.class, () -> waits)
                .run((context) -> {
                    InferenceClient client = context.getBean(InferenceClient.class);
                    List<CallContext> contexts = new ArrayList<>();
                    List<CompletableFuture<Ended>> calls = new ArrayList<>();
                    for (int i = 0; i < PARKED_CALLS; i++) {
                        CallContext callContext = CallContext.cancellable();
                        contexts.add(callContext);
                        int number = i;
                        calls.add(CompletableFuture.supplyAsync(() -> callCancellable(client, number, callContext),
                                executor));
                    }
                    assertThat(parked.await(SAFETY_SECONDS, TimeUnit.SECONDS)).as("every call parked").isTrue();
                    int requestsBeforeCancel = this.server.requestCount();
                    assertThat(requestsBeforeCancel).isEqualTo(PARKED_CALLS);

                    contexts.forEach(CallContext::cancel);

                    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                            .exceptionally((failure) -> null).get(SAFETY_SECONDS, TimeUnit.SECONDS);
                    for (CompletableFuture<Ended> call : calls) {
                        Throwable failure = call.handle((ended, thrown) -> thrown).join();
                        assertThat((failure instanceof CompletionException) ? failure.getCause() : failure)
                                .isInstanceOf(CancellationException.class);
                    }
                    gate.open();
                    assertNothingLeaked();
                    assertThat(this.server.requestCount()).isEqualTo(requestsBeforeCancel);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(sum(registry, "inference.retry.attempts")).isEqualTo(requestsBeforeCancel);
                    assertThat(sum(registry.find("inference.retry.attempts").tag("error", "cancelled")))
                            .isEqualTo(gate.held());
                });
    }

    private static Ended callCancellable(InferenceClient client, int number, CallContext context) {
        InferenceRequest request = InferenceRequest.of(MODEL, "call-" + number);
        if (number % 2 == 0) {
            return new Ended(request.input(), client.invoke(request, context).attempts(), null);
        }
        try (StreamReader reader = client.stream(request, context)) {
            return new Ended(request.input(), reader.result().attempts(), null);
        }
    }

    private void assertNothingLeaked() throws InterruptedException {
        assertThat(this.server.awaitAllConnectionsClosed()).as("connections left open").isZero();
        assertThat(this.tracking.unclosedReaders()).as("stream readers left open").isZero();
    }
}
