package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import dev.inference.sample.provider.RecordedRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

/**
 * The sample end to end, over real sockets: the app's {@code /chat} and {@code /chat/stream}, its
 * retrying client, and the embedded provider failing in a scripted order. The policy is the one in
 * {@code application.yml} (stable-retries 1, stable-delay 200ms, max-attempts 4, max-delay 2s); the
 * waits run in virtual time.
 */
@SampleAppTest
@Import(VirtualTime.class)
class ChatIntegrationTests extends AgainstTheSample {

    @Autowired
    private VirtualTime.Waits waits;

    @BeforeEach
    void clearWaits() {
        this.waits.clear();
    }

    @Nested
    class Chat {

        @Test
        void retriesA429AndA503ThenAnswers() throws Exception {
            provider.script(Outcome.RATE_LIMITED, Outcome.UNAVAILABLE, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "attempts", 3));
            assertThat(provider.requestCount()).isEqualTo(3);
        }

        @Test
        void waitsTheProvidersRetryAfterThenTheSchedule() throws Exception {
            provider.script(Outcome.RATE_LIMITED, Outcome.UNAVAILABLE, Outcome.SUCCESS);

            http.get("/chat?prompt=hi");

            // 1s from retry-after-ms beats the 200ms stable slot; then the first doubled slot, 400ms.
            assertThat(waits.all()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(400));
        }

        @Test
        void sendsTheSameBodyBytesOnEveryAttempt() throws Exception {
            provider.script(Outcome.DROP, Outcome.SERVER_ERROR, Outcome.SUCCESS);

            http.get("/chat?prompt=same%20bytes");

            List<RecordedRequest> requests = provider.requests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(0).bodyText()).isEqualTo("{\"model\":\"gpt-4o-mini\",\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"same bytes\"}],\"stream\":false}");
            assertThat(requests.get(1).body()).isEqualTo(requests.get(0).body());
            assertThat(requests.get(2).body()).isEqualTo(requests.get(0).body());
        }

        @Test
        void answers503WithTheAttemptsOnceRetriesAreExhausted() throws Exception {
            provider.script(Outcome.UNAVAILABLE, Outcome.RATE_LIMITED, Outcome.DROP, Outcome.UNAVAILABLE);

            HttpResponse<String> response = http.get("/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(json(response)).isEqualTo(Map.of("title", "Provider unavailable", "status", 503,
                    "detail", "The provider still failed after 4 attempts: The provider answered 503 (overloaded) "
                            + "to POST /v1/chat/completions",
                    "instance", "/chat", "attempts", 4));
            assertThat(provider.requestCount()).isEqualTo(4);
        }

        @Test
        void answers502AtOnceWhenTheProviderRefusesTheRequest() throws Exception {
            provider.script(Outcome.BAD_REQUEST);

            HttpResponse<String> response = http.get("/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(json(response)).isEqualTo(Map.of("title", "Provider error", "status", 502,
                    "detail", "The provider answered 400 (scripted_bad_request) to POST /v1/chat/completions",
                    "instance", "/chat", "providerStatus", 400));
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        @Test
        void answers502AtOnceWhenTheAccountsQuotaIsUsedUp() throws Exception {
            provider.script(Outcome.QUOTA_EXCEEDED, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(json(response)).isEqualTo(Map.of("title", "Provider quota exceeded", "status", 502,
                    "detail", "You exceeded your current quota, please check your plan and billing details (simulated)",
                    "instance", "/chat", "providerStatus", 429));
            assertThat(provider.requestCount()).isEqualTo(1);
            assertThat(waits.all()).isEmpty();
        }

        @Test
        void answers400WithoutAPrompt() throws Exception {
            HttpResponse<String> response = http.get("/chat");

            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(json(response)).isEqualTo(Map.of("title", "Bad Request", "status", 400,
                    "detail", "Required parameter 'prompt' is not present.", "instance", "/chat"));
            assertThat(provider.requestCount()).isZero();
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesADroppedConnectionThenRelaysEveryChunk() throws Exception {
            provider.script(Outcome.DROP, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/chat/stream?prompt=hi%20there", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    (type) -> assertThat(type).startsWith("text/event-stream"));
            assertThat(response.body()).isEqualTo(chunk("You ") + chunk("said: ") + chunk("hi ") + chunk("there")
                    + "event:done\ndata:{\"attempts\":2}\n\n");
            assertThat(provider.requestCount()).isEqualTo(2);
        }

        @Test
        void endsWithAnErrorEventWhenCutAndNeverRetries() throws Exception {
            provider.script(Outcome.CUT, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/chat/stream?prompt=hi%20there", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).startsWith(chunk("You ") + chunk("said: ") + "event:error\ndata:");
            String error = response.body().substring((chunk("You ") + chunk("said: ") + "event:error\ndata:").length());
            assertThat(json(error.strip())).isEqualTo(Map.of(
                    "title", "Provider connection failed", "status", 502,
                    "detail", "The stream ended before [DONE]", "attempts", 1));
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        @Test
        void answers503WhenNoAttemptEstablishesTheStream() throws Exception {
            provider.script(Outcome.SERVER_ERROR, Outcome.SERVER_ERROR, Outcome.SERVER_ERROR, Outcome.SERVER_ERROR);

            HttpResponse<String> response = http.get("/chat/stream?prompt=hi", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(json(response)).isEqualTo(Map.of("title", "Provider unavailable", "status", 503,
                    "detail", "The provider still failed after 4 attempts: The provider answered 500 "
                            + "(internal_error) to POST /v1/chat/completions",
                    "instance", "/chat/stream", "attempts", 4));
        }

        private String chunk(String content) {
            return "event:chunk\ndata:{\"content\":\"" + content + "\"}\n\n";
        }
    }
}
