package dev.inference.sample.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchRuntimeException;

import dev.inference.client.Authorizer;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.StreamReader;
import dev.inference.retry.autoconfigure.RetrierCustomizer;
import dev.inference.sample.NoJitter;
import dev.inference.sample.provider.FlakyProvider;
import dev.inference.sample.provider.Outcome;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample app with an API key set by property ({@code OPENAI_API_KEY}, which
 * {@code application.yml} maps to {@code sample.inference.api-key}), run against its embedded
 * provider failing in scripted ways: the key goes to the provider with every attempt, and nowhere
 * else. Not into what failed calls throw (messages of the whole cause chain and every suppressed
 * failure), the answers of {@code /chat} and {@code /chat/stream}, the log, the meters' names, tags
 * and descriptions, or {@code /actuator/inferenceretry} and {@code /actuator/metrics}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "OPENAI_API_KEY=" + SecretsIntegrationTests.KEY,
        "sample.provider.faults.rate-limited=0", "sample.provider.faults.unavailable=0",
        "sample.provider.faults.server-error=0", "sample.provider.faults.dropped=0", "sample.provider.faults.cut=0",
        "management.metrics.use-global-registry=false", "logging.level.dev.inference=TRACE",
        "logging.level.org.springframework.web=DEBUG" })
@ExtendWith(OutputCaptureExtension.class)
class SecretsIntegrationTests {

    static final String KEY = "sk-test-SECRET-4242";

    /** What must never show: the key itself, and its distinctive middle should it be cut or masked. */
    private static final String[] SECRETS = { KEY, "SECRET-4242" };

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The scripts of failing and succeeding calls, each as many outcomes as the call will use. */
    private static final List<List<Outcome>> CALLS = List.of(
            List.of(Outcome.SUCCESS),
            List.of(Outcome.RATE_LIMITED, Outcome.SUCCESS),
            List.of(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE),
            List.of(Outcome.DROP, Outcome.DROP, Outcome.DROP, Outcome.DROP),
            List.of(Outcome.SERVER_ERROR, Outcome.CUT, Outcome.CUT, Outcome.CUT),
            List.of(Outcome.BAD_REQUEST));

    @LocalServerPort
    private int port;

    @Autowired
    private FlakyProvider provider;

    @Autowired
    private InferenceClient client;

    @Autowired
    private Authorizer authorizer;

    @Autowired
    private MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void resetProvider() {
        this.provider.reset();
    }

    /** Waits in virtual time: the retries are real, the waits between them are not. */
    @TestConfiguration(proxyBeanMethods = false)
    static class VirtualTime {

        @Bean
        RetrierCustomizer virtualTime() {
            return (beanName, builder) -> builder.random(NoJitter.INSTANCE).sleeper((delay, context) -> { });
        }
    }

    @Test
    void isSentToTheProviderWithEveryAttempt() throws Exception {
        provider.script(Outcome.RATE_LIMITED, Outcome.DROP, Outcome.SUCCESS);

        assertThat(get("/chat?prompt=hi").statusCode()).isEqualTo(200);

        assertThat(provider.requests()).hasSize(3).allSatisfy((request) ->
                assertThat(request.header("Authorization")).contains("Bearer " + KEY));
    }

    @Test
    void isNeverInWhatFailedCallsThrow() {
        List<RuntimeException> failures = new ArrayList<>();
        for (List<Outcome> call : CALLS) {
            for (boolean stream : new boolean[] { false, true }) {
                script(call);
                RuntimeException failure = catchRuntimeException(() -> call(stream, newContext()));
                if (failure != null) {
                    failures.add(failure);
                }
            }
        }
        CallContext cancelled = newContext();
        cancelled.cancel();
        failures.add(catchRuntimeException(() -> call(false, cancelled)));
        script(List.of(Outcome.STALL));
        failures.add(catchRuntimeException(() -> call(false,
                CallContext.withTimeout(Duration.ofMillis(100)).withAuthorizer(authorizer))));

        assertThat(failures).hasSize(10).allSatisfy((failure) -> assertThat(everythingSaidAbout(failure))
                .doesNotContain(SECRETS));
        assertThat(failures).anySatisfy((failure) -> assertThat(failure).isInstanceOf(CancellationException.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("headersNoRequestCanCarry")
    void isNeverEchoedWhenItCannotBeSentAsAHeader(String problem, Map<String, String> headers, String message) {
        CallContext context = newContext().withAuthorizer(() -> headers);

        RuntimeException failure = catchRuntimeException(() -> call(false, context));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThat(everythingSaidAbout(failure)).doesNotContain(SECRETS);
        assertThat(provider.requests()).isEmpty();
    }

    static Stream<Arguments> headersNoRequestCanCarry() {
        return Stream.of(
                Arguments.of("line break in the value", Map.of("Authorization", "Bearer " + KEY + "\nX-Other: 1"),
                        "The context's Authorizer supplied a value for the header Authorization that HTTP cannot carry "
                                + "(control characters such as line breaks are not allowed); the value is not shown "
                                + "since it may be a credential"),
                Arguments.of("control character in the value",
                        Map.of("Authorization", "Bearer sk-test-\u0007SECRET-4242"),
                        "The context's Authorizer supplied a value for the header Authorization that HTTP cannot carry "
                                + "(control characters such as line breaks are not allowed); the value is not shown "
                                + "since it may be a credential"),
                Arguments.of("whole header line as the name", Map.of("Authorization: Bearer " + KEY, ""),
                        "The context's Authorizer supplied a header name that is not an HTTP token; the name is not "
                                + "shown since it may hold a credential"),
                Arguments.of("restricted header", Map.of("Host", "api.example"),
                        "The context's Authorizer supplied the header Host, which the HTTP client does not let a "
                                + "request set"));
    }

    @Test
    void isNeverInTheChatAnswers() throws Exception {
        List<String> answers = new ArrayList<>();
        for (List<Outcome> call : CALLS) {
            script(call);
            answers.add(get("/chat?prompt=hi").body());
            script(call);
            answers.add(get("/chat/stream?prompt=hi").body());
        }

        assertThat(answers).hasSize(12).allSatisfy((answer) -> assertThat(answer).doesNotContain(SECRETS));
        assertThat(String.join("\n", answers)).contains("You said: hi", "Provider unavailable", "Provider error");
    }

    @Test
    void isNeverLogged(CapturedOutput output) throws Exception {
        for (List<Outcome> call : CALLS) {
            script(call);
            get("/chat?prompt=hi");
            script(call);
            get("/chat/stream?prompt=hi");
        }

        assertThat(output.getAll()).contains("Embedded provider: request").doesNotContain(SECRETS);
    }

    @Test
    void isNeverInAMeter() throws Exception {
        for (List<Outcome> call : CALLS) {
            script(call);
            get("/chat?prompt=hi");
        }

        List<String> meters = registry.getMeters().stream().map(SecretsIntegrationTests::describe).toList();
        assertThat(meters).anySatisfy((meter) -> assertThat(meter).startsWith("inference.retry.attempts"))
                .allSatisfy((meter) -> assertThat(meter).doesNotContain(SECRETS));
    }

    @Test
    void isNeverInTheActuatorEndpoints() throws Exception {
        for (List<Outcome> call : CALLS) {
            script(call);
            get("/chat?prompt=hi");
        }
        List<String> bodies = new ArrayList<>();
        bodies.add(get("/actuator/inferenceretry").body());
        String metrics = get("/actuator/metrics").body();
        bodies.add(metrics);
        for (JsonNode name : JSON.readTree(metrics).path("names")) {
            bodies.add(get("/actuator/metrics/" + name.asString()).body());
        }

        assertThat(bodies).hasSizeGreaterThan(10).allSatisfy((body) -> assertThat(body).doesNotContain(SECRETS));
        assertThat(bodies).anySatisfy((body) -> assertThat(body).contains("\"name\":\"inference.retry.attempts\""));
    }

    /** Scripts the next call alone: outcomes a call did not use are dropped, not left to the next. */
    private void script(List<Outcome> outcomes) {
        this.provider.reset();
        this.provider.script(outcomes.toArray(Outcome[]::new));
    }

    private CallContext newContext() {
        return CallContext.withTimeout(Duration.ofSeconds(30)).withAuthorizer(this.authorizer);
    }

    private void call(boolean stream, CallContext context) {
        InferenceRequest request = InferenceRequest.of("gpt-4o-mini", "hi");
        if (!stream) {
            this.client.invoke(request, context);
            return;
        }
        try (StreamReader reader = this.client.stream(request, context)) {
            while (reader.hasNext()) {
                reader.next();
            }
        }
    }

    private HttpResponse<String> get(String pathAndQuery) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + pathAndQuery))
                .GET().build();
        return this.http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The failure's stack trace: the {@code toString()} of it and of everything in its causes and suppressed. */
    private static String everythingSaidAbout(Throwable failure) {
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        return trace.toString();
    }

    private static String describe(Meter meter) {
        return meter.getId().getName() + " " + meter.getId().getTags() + " " + meter.getId().getDescription() + " "
                + meter.getId().getBaseUnit();
    }
}
