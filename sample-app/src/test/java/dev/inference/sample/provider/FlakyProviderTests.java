package dev.inference.sample.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.client.InferenceRequest;
import dev.inference.client.StreamReader;
import dev.inference.failure.NetworkException;
import dev.inference.sample.openai.OpenAiCompatibleClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tests for {@link FlakyProvider}, over real loopback sockets.
 */
// A guard against a hang, not a timing assertion.
@Timeout(30)
class FlakyProviderTests {

    private static final String UNARY = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}";

    private static final InferenceRequest REQUEST = InferenceRequest.of("m", "Hello there");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final List<FlakyProvider> started = new ArrayList<>();

    @AfterEach
    void stopProviders() {
        this.started.forEach(FlakyProvider::close);
    }

    private FlakyProvider start(FaultMix faults, long seed) {
        FlakyProvider provider = FlakyProvider.start(faults, seed, Duration.ofMillis(1500));
        this.started.add(provider);
        return provider;
    }

    private FlakyProvider scripted(Outcome... outcomes) {
        FlakyProvider provider = start(FaultMix.none(), 1);
        provider.script(outcomes);
        return provider;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private HttpResponse<String> post(FlakyProvider provider, String path, String body) throws Exception {
        return this.http.send(HttpRequest.newBuilder(provider.baseUrl().resolve(path))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer k")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private OpenAiCompatibleClient client(FlakyProvider provider) {
        return OpenAiCompatibleClient.builder(provider.baseUrl()).build();
    }

    @Nested
    class Success {

        @Test
        void listensOnALoopbackPort() {
            assertThat(scripted().baseUrl().toString()).matches("http://127\\.0\\.0\\.1:\\d+");
        }

        @Test
        void answersWithACompletionThatEchoesThePrompt() throws Exception {
            HttpResponse<String> response = post(scripted(Outcome.SUCCESS), "/v1/chat/completions", UNARY);

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
            assertThat(response.body()).isEqualTo("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":"
                    + "\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                    + "\"You said: Hello there\"},\"finish_reason\":\"stop\"}]}");
        }

        @Test
        void answersWithAnEmbeddingOfEachTextComputedFromTheTextAlone() throws Exception {
            HttpResponse<String> response = post(scripted(Outcome.SUCCESS), "/v1/embeddings",
                    "{\"model\":\"e\",\"input\":[\"Hello there\",\"Hi\"]}");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("{\"object\":\"list\",\"data\":[{\"object\":\"embedding\","
                    + "\"index\":0,\"embedding\":[11.0,2.0,1.0]},{\"object\":\"embedding\",\"index\":1,"
                    + "\"embedding\":[2.0,1.0,1.0]}],\"model\":\"e\",\"usage\":{\"prompt_tokens\":2,"
                    + "\"total_tokens\":2}}");
        }

        @Test
        void failsAnEmbeddingsRequestAsAChatRequest() throws Exception {
            HttpResponse<String> response = post(scripted(Outcome.UNAVAILABLE), "/v1/embeddings",
                    "{\"model\":\"e\",\"input\":\"Hello\"}");

            assertThat(response.statusCode()).isEqualTo(503);
        }

        @Test
        void streamsOneWordPerChunkThenDone() throws Exception {
            FlakyProvider provider = scripted(Outcome.SUCCESS);

            try (StreamReader reader = client(provider).stream(REQUEST)) {
                List<String> chunks = new ArrayList<>();
                while (reader.hasNext()) {
                    chunks.add(reader.next().data());
                }
                assertThat(chunks).containsExactly("You ", "said: ", "Hello ", "there");
                assertThat(reader.result().failure()).isEmpty();
            }
        }
    }

    @Nested
    class RateLimited {

        /** A provider whose limit's clock stands still at the start of a window: each reset is the whole window. */
        private FlakyProvider limited(int requests, Duration window) {
            FlakyProvider provider = FlakyProvider.start(new FaultMix(0.2, 0.2, 0.2, 0.2, 0.2), 1, Duration.ofSeconds(9), 0,
                    RateLimit.withClocks(requests, window, () -> 0L, 0L));
            started.add(provider);
            return provider;
        }

        @Test
        void answersEveryRequestWithinTheLimitTellingWhatIsLeft() throws Exception {
            FlakyProvider provider = limited(2, Duration.ofMinutes(1));

            HttpResponse<String> first = post(provider, "/v1/chat/completions", UNARY);
            HttpResponse<String> second = post(provider, "/v1/chat/completions", UNARY);

            assertThat(List.of(first.statusCode(), second.statusCode())).containsExactly(200, 200);
            assertThat(first.headers().firstValue("x-ratelimit-limit-requests")).contains("2");
            assertThat(first.headers().firstValue("x-ratelimit-remaining-requests")).contains("1");
            assertThat(second.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
            assertThat(second.headers().firstValue("x-ratelimit-reset-requests")).contains("1m0s");
        }

        @Test
        void answersARequestPastTheLimit429UntilTheWindowEnds() throws Exception {
            FlakyProvider provider = limited(1, Duration.ofMinutes(1));
            post(provider, "/v1/chat/completions", UNARY);

            HttpResponse<String> refused = post(provider, "/v1/chat/completions", UNARY);

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"code\":\"rate_limit_exceeded\"");
            assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
            assertThat(refused.headers().firstValue("Retry-After")).contains("60");
            assertThat(refused.headers().firstValue("retry-after-ms")).contains("60000");
        }

        @Test
        void letsTheClientReadThatTheLimitIsExhausted() {
            FlakyProvider provider = limited(1, Duration.ofMinutes(1));

            assertThat(client(provider).invoke(REQUEST).rateLimitedFor()).contains(Duration.ofMinutes(1));
        }

        @Test
        void stillAnswersScriptedOutcomesFirst() throws Exception {
            FlakyProvider provider = limited(5, Duration.ofMinutes(1));
            provider.script(Outcome.UNAVAILABLE);

            HttpResponse<String> response = post(provider, "/v1/chat/completions", UNARY);

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("x-ratelimit-remaining-requests")).contains("4");
        }

        @ParameterizedTest(name = "{0} is \"{1}\"")
        @CsvSource({ "PT0.0001S, 1ms", "PT0.85S, 850ms", "PT0.9999S, 1s", "PT1S, 1s", "PT1.25S, 1.25s", "PT59.999S, 59.999s",
                "PT1M30.5S, 1m30.5s", "PT6M, 6m0s" })
        void writesItsResetsAsOpenAiDoes(Duration reset, String written) {
            assertThat(FlakyProvider.goDuration(reset)).isEqualTo(written);
        }
    }

    @Nested
    class Faults {

        @ParameterizedTest
        @CsvSource({ "RATE_LIMITED, 429, rate_limit_exceeded", "UNAVAILABLE, 503, overloaded",
                "SERVER_ERROR, 500, internal_error", "BAD_REQUEST, 400, scripted_bad_request" })
        void answersAnErrorStatusWithAnErrorObject(Outcome outcome, int status, String code) throws Exception {
            HttpResponse<String> response = post(scripted(outcome), "/v1/chat/completions", UNARY);

            assertThat(response.statusCode()).isEqualTo(status);
            assertThat(response.body()).contains("\"code\":\"" + code + "\"");
        }

        @Test
        void rateLimitAsksForItsDelayInBothHeaders() throws Exception {
            HttpResponse<String> response = post(scripted(Outcome.RATE_LIMITED), "/v1/chat/completions", UNARY);

            assertThat(response.headers().firstValue("retry-after-ms")).contains("1500");
            assertThat(response.headers().firstValue("Retry-After")).contains("2");
        }

        @Test
        void dropResetsTheConnectionWithoutAnswering() {
            FlakyProvider provider = scripted(Outcome.DROP);

            assertThatExceptionOfType(IOException.class)
                    .isThrownBy(() -> post(provider, "/v1/chat/completions", UNARY));
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        @Test
        void cutStreamEndsAfterTwoChunksWithoutDone() {
            FlakyProvider provider = scripted(Outcome.CUT);

            try (StreamReader reader = client(provider).stream(REQUEST)) {
                assertThat(reader.next().data()).isEqualTo("You ");
                assertThat(reader.next().data()).isEqualTo("said: ");
                assertThatExceptionOfType(NetworkException.class).isThrownBy(reader::hasNext)
                        .withMessage("The stream ended before [DONE]");
            }
        }

        @Test
        void cutUnaryResponseEndsHalfWayThroughItsBody() {
            FlakyProvider provider = scripted(Outcome.CUT);

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client(provider).invoke(REQUEST))
                    .withMessage("The connection was cut before the response was complete");
        }

        @Test
        void stallHoldsTheConnectionUntilTheClientGivesUp() {
            FlakyProvider provider = scripted(Outcome.STALL);
            OpenAiCompatibleClient impatient = OpenAiCompatibleClient.builder(provider.baseUrl())
                    .responseTimeout(Duration.ofMillis(50)).build();

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> impatient.invoke(REQUEST))
                    .withMessage("The provider sent no response within PT0.05S");
        }
    }

    @Nested
    class Outcomes {

        @Test
        void scriptedOutcomesComeFirstInOrder() throws Exception {
            FlakyProvider provider = scripted(Outcome.RATE_LIMITED, Outcome.UNAVAILABLE);

            assertThat(statuses(provider, 3)).containsExactly(429, 503, 200);
        }

        @Test
        void sameSeedGivesTheSameOutcomes() throws Exception {
            FaultMix faults = new FaultMix(0.3, 0.3, 0.2, 0, 0);

            List<Integer> first = statuses(start(faults, 7), 20);
            List<Integer> second = statuses(start(faults, 7), 20);

            assertThat(second).isEqualTo(first);
            assertThat(first).contains(200, 429, 503, 500);
        }

        @Test
        void resetForgetsRequestsAndScript() throws Exception {
            FlakyProvider provider = scripted(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE);
            statuses(provider, 1);

            provider.reset();

            assertThat(provider.requestCount()).isZero();
            assertThat(statuses(provider, 1)).containsExactly(200);
        }

        private List<Integer> statuses(FlakyProvider provider, int requests) throws Exception {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                statuses.add(post(provider, "/v1/chat/completions", UNARY).statusCode());
            }
            return statuses;
        }
    }

    @Nested
    class Recording {

        @Test
        void recordsEveryRequestByteForByte() throws Exception {
            FlakyProvider provider = scripted(Outcome.RATE_LIMITED, Outcome.DROP);
            post(provider, "/v1/chat/completions", UNARY);
            assertThatExceptionOfType(IOException.class)
                    .isThrownBy(() -> post(provider, "/v1/chat/completions", UNARY));

            assertThat(provider.requestCount()).isEqualTo(2);
            RecordedRequest first = provider.requests().get(0);
            assertThat(first.method()).isEqualTo("POST");
            assertThat(first.path()).isEqualTo("/v1/chat/completions");
            assertThat(first.header("authorization")).contains("Bearer k");
            assertThat(first.bodyText()).isEqualTo(UNARY);
            assertThat(provider.requests().get(1).body()).isEqualTo(first.body());
        }

        @Test
        void answersAnUnknownPathWith404AndCountsIt() throws Exception {
            FlakyProvider provider = scripted();

            assertThat(post(provider, "/v1/images/generations", UNARY).statusCode()).isEqualTo(404);
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        @Test
        void answersABodyWithoutAUserMessageWith400() throws Exception {
            assertThat(post(scripted(), "/v1/chat/completions", "{\"model\":\"m\",\"messages\":[]}").statusCode())
                    .isEqualTo(400);
        }
    }

    @Nested
    class Lifecycle {

        @Test
        void servesNothingOnceClosed() {
            FlakyProvider provider = scripted();
            URI baseUrl = provider.baseUrl();

            provider.close();

            // Normally refused; but the freed port may already belong to another server on this
            // machine, which may never answer: what matters is that this provider serves nothing.
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> http.send(
                    HttpRequest.newBuilder(baseUrl.resolve("/v1/chat/completions"))
                            .timeout(Duration.ofSeconds(5))
                            .POST(HttpRequest.BodyPublishers.ofString(UNARY)).build(),
                    HttpResponse.BodyHandlers.ofString()));
            assertThat(provider.requestCount()).isZero();
        }

        @Test
        void listensOnThePortItIsGiven() throws IOException {
            int port = freePort();

            FlakyProvider provider = FlakyProvider.start(FaultMix.none(), 1, Duration.ofSeconds(1), port);
            started.add(provider);

            assertThat(provider.baseUrl()).hasToString("http://127.0.0.1:" + port);
        }

        @Test
        void failsNamingAPortThatIsTaken() throws IOException {
            try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                assertThatExceptionOfType(UncheckedIOException.class)
                        .isThrownBy(() -> FlakyProvider.start(FaultMix.none(), 1, Duration.ofSeconds(1),
                                taken.getLocalPort()))
                        .withMessage("Could not open port " + taken.getLocalPort()
                                + " of 127.0.0.1 for the embedded provider");
            }
        }

        @Test
        void refusesAPortOutOfRange() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> FlakyProvider.start(FaultMix.none(), 1, Duration.ofSeconds(1), 65536))
                    .withMessage("port must be from 0 (any free port) to 65535, was 65536");
        }

        @Test
        void refusesARetryAfterShorterThanAMillisecond() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> FlakyProvider.start(FaultMix.none(), 1, Duration.ofNanos(999_999)))
                    .withMessage("retryAfter must be at least 1ms, was PT0.000999999S");
        }
    }
}
