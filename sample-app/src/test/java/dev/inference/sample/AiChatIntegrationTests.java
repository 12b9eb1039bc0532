package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import dev.inference.sample.provider.RecordedRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Import;

/**
 * The sample's Spring AI side end to end, over real sockets: {@code /ai/chat} and
 * {@code /ai/chat/stream}, a {@code ChatClient} over the fallback chain of Spring AI's real OpenAI chat
 * model, which the retry starter retries beneath the bean, and its Anthropic one, the backup, and the
 * embedded provider failing in a scripted order (its Anthropic side never fails). The
 * policy is the one in {@code application.yml} (stable-retries 1, stable-delay 200ms, max-attempts 4,
 * max-delay 2s), with no jitter. The model's blocking calls wait with the virtual time's sleeper,
 * which reaches their retrier as any customizer's setting does; its streams wait on a timer, in real
 * time, so the scripts avoid 429's one-second {@code Retry-After}.
 */
@SampleAppTest
@Import(VirtualTime.class)
class AiChatIntegrationTests extends AgainstTheSample {

    @Nested
    class Chat {

        @Test
        void retriesA503ThenAnswers() throws Exception {
            provider.script(Outcome.UNAVAILABLE, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "gpt-4o-mini"));
            assertThat(provider.requestCount()).isEqualTo(2);
        }

        @Test
        void sendsTheSameBodyBytesOnEveryAttempt() throws Exception {
            provider.script(Outcome.DROP, Outcome.SERVER_ERROR, Outcome.SUCCESS);

            http.get("/ai/chat?prompt=same%20bytes");

            List<RecordedRequest> requests = provider.requests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(0).bodyText()).contains("\"content\":\"same bytes\"", "\"model\":\"gpt-4o-mini\"");
            assertThat(requests.get(1).body()).isEqualTo(requests.get(0).body());
            assertThat(requests.get(2).body()).isEqualTo(requests.get(0).body());
        }

        @Test
        void sendsNoAuthorizationWithoutAKey() throws Exception {
            provider.script(Outcome.SUCCESS);

            http.get("/ai/chat?prompt=hi");

            assertThat(provider.requests()).singleElement()
                .satisfies((request) -> assertThat(request.header("Authorization")).isEmpty());
        }

        @Test
        void isAnsweredByTheBackupModelAtOnceWhenTheAccountsQuotaIsUsedUp() throws Exception {
            provider.script(Outcome.QUOTA_EXCEEDED, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "claude-sample"));
            assertThat(provider.requestCount()).isEqualTo(1);
            assertThat(provider.backupRequestCount()).isEqualTo(1);
        }

        @Test
        void isAnsweredByTheBackupModelOnceRetriesAreExhausted() throws Exception {
            provider.script(Outcome.UNAVAILABLE, Outcome.DROP, Outcome.SERVER_ERROR, Outcome.UNAVAILABLE,
                    Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "claude-sample"));
            assertThat(provider.requestCount()).isEqualTo(4);
            assertThat(provider.backupRequestCount()).isEqualTo(1);
        }

        @Test
        void isAnsweredByTheBackupModelWhileTheOpenAiSideIsSwitchedOff() throws Exception {
            provider.setOpenAiDown(true);
            double fellOver = fallOvers();

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "claude-sample"));
            assertThat(fallOvers() - fellOver).isEqualTo(1);
            // Counted from the first call it answered, which may be another test's in this context.
            assertThat(answeredByTheBackup()).isPositive();
        }

        private double fallOvers() throws Exception {
            return http.metric("inference.retry.fallbacks", "chain:chat", "member:openAiChatModel", "reason:exhausted");
        }

        private double answeredByTheBackup() throws Exception {
            return http.metric("inference.retry.fallback.calls", "chain:chat", "answered_by:anthropicChatModel");
        }

        @Test
        void retriesAnAnswerCutBeforeItsEnd() throws Exception {
            provider.script(Outcome.CUT, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            // Half the body the head announced: the attempt fails as the network, before anything reached the caller.
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "model", "gpt-4o-mini"));
            assertThat(provider.requestCount()).isEqualTo(2);
        }

        @Test
        void answers502AtOnceWhenTheProviderRefusesTheRequest() throws Exception {
            provider.script(Outcome.BAD_REQUEST);

            HttpResponse<String> response = http.get("/ai/chat?prompt=hi");

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(json(response)).isEqualTo(Map.of("title", "Provider error", "status", 502,
                    "detail", "400: The request was refused (scripted)", "instance", "/ai/chat",
                    "providerStatus", 400));
            assertThat(provider.requestCount()).isEqualTo(1);
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesA503ThenRelaysEveryChunkOnce() throws Exception {
            provider.script(Outcome.UNAVAILABLE, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat/stream?prompt=hi%20there", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    (type) -> assertThat(type).startsWith("text/event-stream"));
            assertThat(response.body()).isEqualTo(chunk("You ") + chunk("said: ") + chunk("hi ") + chunk("there")
                    + "event:done\ndata:{\"finishReason\":\"STOP\"}\n\n");
            assertThat(provider.requestCount()).isEqualTo(2);
        }

        @Test
        void endsWithAnErrorEventWhenCutAndNeverRetries() throws Exception {
            provider.script(Outcome.CUT, Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat/stream?prompt=hi%20there", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(200);
            String relayed = chunk("You ") + chunk("said: ") + "event:error\ndata:";
            assertThat(response.body()).startsWith(relayed);
            assertThat(json(response.body().substring(relayed.length()).strip())).isEqualTo(Map.of(
                    "title", "Provider connection failed", "status", 502,
                    "detail", "The stream ended before the provider gave a finish reason"));
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        @Test
        void isStreamedByTheBackupModelWhenNoAttemptEstablishesTheStream() throws Exception {
            provider.script(Outcome.SERVER_ERROR, Outcome.DROP, Outcome.SERVER_ERROR, Outcome.SERVER_ERROR,
                    Outcome.SUCCESS);

            HttpResponse<String> response = http.get("/ai/chat/stream?prompt=hi", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).startsWith(chunk("You ") + chunk("said: ") + chunk("hi"))
                .contains("event:done");
            assertThat(provider.requestCount()).isEqualTo(4);
            assertThat(provider.backupRequestCount()).isEqualTo(1);
        }

        @Test
        void answers502AtOnceWhenTheProviderRefusesTheRequest() throws Exception {
            provider.script(Outcome.BAD_REQUEST);

            HttpResponse<String> response = http.get("/ai/chat/stream?prompt=hi", "text/event-stream");

            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(json(response)).containsEntry("providerStatus", 400).containsEntry("title", "Provider error");
            assertThat(provider.requestCount()).isEqualTo(1);
        }

        private String chunk(String content) {
            return "event:chunk\ndata:{\"content\":\"" + content + "\"}\n\n";
        }
    }
}
