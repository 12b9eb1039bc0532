package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.annotation.DirtiesContext.ClassMode;

/**
 * What the sample exposes at {@code /actuator}: the retry metrics of its {@code openai} client and of
 * its Spring AI models {@code openAiChatModel} and {@code openAiEmbeddingModel}, and the
 * {@code inferenceretry} endpoint. Each test
 * starts a fresh application, never one cached by another test class, so every count is exact.
 */
@SampleAppTest
@Import(VirtualTime.class)
@DirtiesContext(classMode = ClassMode.BEFORE_EACH_TEST_METHOD)
class RetryObservabilityIntegrationTests extends AgainstTheSample {

    @Test
    void exhaustedCountersStartAtZero() throws Exception {
        assertThat(http.metric("inference.retry.exhausted", "client:openai", "operation:invoke")).isZero();
        assertThat(http.metric("inference.retry.exhausted", "client:openai", "operation:stream")).isZero();
    }

    @Test
    void countsEveryAttemptByOutcomeAndError() throws Exception {
        provider.script(Outcome.RATE_LIMITED, Outcome.UNAVAILABLE, Outcome.SUCCESS);

        http.get("/chat?prompt=hi");

        assertThat(http.metric("inference.retry.attempts", "client:openai", "operation:invoke")).isEqualTo(3);
        assertThat(http.metric("inference.retry.attempts", "client:openai", "outcome:retryable_failure",
                "error:http_429")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openai", "outcome:retryable_failure",
                "error:http_503")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openai", "outcome:success", "error:none"))
                .isEqualTo(1);
        assertThat(http.metric("inference.retry.exhausted", "client:openai", "operation:invoke")).isZero();
    }

    @Test
    void timesEveryScheduledWait() throws Exception {
        provider.script(Outcome.RATE_LIMITED, Outcome.UNAVAILABLE, Outcome.SUCCESS);

        http.get("/chat?prompt=hi");

        HttpResponse<String> backoff = http.get(
                "/actuator/metrics/inference.retry.backoff?tag=client:openai&tag=operation:invoke");
        assertThat(json(backoff).get("measurements")).isEqualTo(List.of(
                Map.of("statistic", "COUNT", "value", 2.0),
                Map.of("statistic", "TOTAL_TIME", "value", 1.4),
                Map.of("statistic", "MAX", "value", 1.0)));
    }

    @Test
    void countsAnExhaustedCallOnceAndEachOfItsAttempts() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE);

        http.get("/chat?prompt=hi");

        assertThat(http.metric("inference.retry.exhausted", "client:openai", "operation:invoke")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openai", "operation:invoke",
                "outcome:retryable_failure", "error:http_503")).isEqualTo(4);
    }

    @Test
    void countsANonRetryableFailureAsAFailure() throws Exception {
        provider.script(Outcome.BAD_REQUEST);

        http.get("/chat?prompt=hi");

        assertThat(http.metric("inference.retry.attempts", "client:openai", "outcome:failure", "error:http_400"))
                .isEqualTo(1);
    }

    @Test
    void countsStreamAttemptsApart() throws Exception {
        provider.script(Outcome.DROP, Outcome.SUCCESS);

        http.get("/chat/stream?prompt=hi", "text/event-stream");

        assertThat(http.metric("inference.retry.attempts", "client:openai", "operation:stream",
                "outcome:retryable_failure", "error:network")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openai", "operation:stream", "outcome:success"))
                .isEqualTo(1);
    }

    @Test
    void inferenceRetryEndpointListsTheClientAndTheSpringAiModelsWithTheirPolicyAndSchedule() throws Exception {
        HttpResponse<String> response = http.get("/actuator/inferenceretry");

        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, Object> policy = Map.of("stableRetries", 1, "stableDelay", "PT0.2S", "maxAttempts", 4,
                "maxDelay", "PT2S");
        List<Map<String, Object>> schedule = List.of(
                Map.of("failedAttempt", 1, "slot", "PT0.2S", "min", "PT0.18S", "max", "PT0.22S"),
                Map.of("failedAttempt", 2, "slot", "PT0.4S", "min", "PT0.36S", "max", "PT0.44S"),
                Map.of("failedAttempt", 3, "slot", "PT0.8S", "min", "PT0.72S", "max", "PT0.88S"));
        // The timeouts the sample sets in application.yml, the same for every bean.
        Map<String, Object> timeouts = Map.of("attemptTimeout", "PT20S", "firstTokenTimeout", "PT10S",
                "streamIdleTimeout", "PT10S");
        List<String> members = List.of("openAiChatModel", "anthropicChatModel");
        assertThat(json(response)).isEqualTo(Map.of("clients", Map.of(
                "openai", Map.of("name", "openai", "policy", policy, "schedule", schedule,
                        "timeouts", timeouts),
                "openAiChatModel", Map.of("name", "openAiChatModel", "policy", policy, "schedule", schedule,
                        "timeouts", timeouts),
                "anthropicChatModel", Map.of("name", "anthropicChatModel", "policy", policy, "schedule", schedule,
                        "timeouts", timeouts),
                "openAiEmbeddingModel", Map.of("name", "openAiEmbeddingModel", "policy", policy, "schedule",
                        schedule, "timeouts", timeouts)),
                "fallbacks", Map.of("chat", Map.of("members", members, "primary", true, "status", List.of(
                        Map.of("member", "openAiChatModel", "skipped", false),
                        Map.of("member", "anthropicChatModel", "skipped", false))))));
    }

    @Test
    void chatModelExhaustedCountersStartAtZeroUnderItsBeanName() throws Exception {
        assertThat(http.metric("inference.retry.exhausted", "client:openAiChatModel", "operation:invoke"))
                .isZero();
        assertThat(http.metric("inference.retry.exhausted", "client:openAiChatModel", "operation:stream"))
                .isZero();
    }

    @Test
    void countsEveryAttemptOfASpringAiChatUnderTheModelsBeanName() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.SERVER_ERROR, Outcome.SUCCESS);

        http.get("/ai/chat?prompt=hi");

        assertThat(http.metric("inference.retry.attempts", "client:openAiChatModel", "operation:invoke"))
                .isEqualTo(3);
        assertThat(http.metric("inference.retry.attempts", "client:openAiChatModel", "operation:invoke",
                "outcome:retryable_failure", "error:http_503")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openAiChatModel", "operation:invoke",
                "outcome:retryable_failure", "error:http_500")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openAiChatModel", "operation:invoke",
                "outcome:success", "error:none")).isEqualTo(1);
    }

    @Test
    void countsEveryAttemptOfAnEmbeddingUnderTheModelsBeanName() throws Exception {
        provider.script(Outcome.RATE_LIMITED, Outcome.SUCCESS);

        http.get("/ai/embed?text=hi");

        assertThat(http.metric("inference.retry.attempts", "client:openAiEmbeddingModel", "operation:invoke",
                "outcome:retryable_failure", "error:http_429")).isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openAiEmbeddingModel", "operation:invoke",
                "outcome:success", "error:none")).isEqualTo(1);
        assertThat(http.metric("inference.retry.exhausted", "client:openAiEmbeddingModel", "operation:invoke"))
                .isZero();
    }

    @Test
    void countsAnExhaustedSpringAiStreamAndEachOfItsAttempts() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE);

        http.get("/ai/chat/stream?prompt=hi", "text/event-stream");

        assertThat(http.metric("inference.retry.exhausted", "client:openAiChatModel", "operation:stream"))
                .isEqualTo(1);
        assertThat(http.metric("inference.retry.attempts", "client:openAiChatModel", "operation:stream",
                "outcome:retryable_failure", "error:http_503")).isEqualTo(4);
    }

    @Test
    void timesEveryScheduledWaitOfASpringAiChat() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.DROP, Outcome.SUCCESS);

        http.get("/ai/chat?prompt=hi");

        HttpResponse<String> backoff = http.get(
                "/actuator/metrics/inference.retry.backoff?tag=client:openAiChatModel&tag=operation:invoke");
        assertThat(json(backoff).get("measurements")).isEqualTo(List.of(
                Map.of("statistic", "COUNT", "value", 2.0),
                Map.of("statistic", "TOTAL_TIME", "value", 0.6),
                Map.of("statistic", "MAX", "value", 0.4)));
    }
}
