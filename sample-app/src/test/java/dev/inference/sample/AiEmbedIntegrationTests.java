package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import dev.inference.sample.provider.RecordedRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Import;

/**
 * {@code /ai/embed} end to end, over real sockets: Spring AI's real OpenAI embedding model, which the
 * retry starter retries beneath the bean, and the embedded provider failing in a scripted order. The
 * policy is the one in {@code application.yml} (stable-retries 1, stable-delay 200ms, max-attempts 4,
 * max-delay 2s), with no jitter, and its waits in virtual time.
 */
@SampleAppTest
@Import(VirtualTime.class)
class AiEmbedIntegrationTests extends AgainstTheSample {

    @Test
    void retriesA503ThenAnswersSendingTheSameBodyEachTime() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.SUCCESS);

        HttpResponse<String> response = http.get("/ai/embed?text=hello%20world");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response)).isEqualTo(Map.of("embedding", List.of(11.0, 2.0, 1.0)));
        List<RecordedRequest> requests = provider.requests();
        assertThat(requests).hasSize(2).allSatisfy((request) -> assertThat(request.path()).isEqualTo("/v1/embeddings"));
        assertThat(requests.get(0).bodyText()).contains("\"hello world\"", "\"model\":\"text-embedding-3-small\"");
        assertThat(requests.get(1).body()).isEqualTo(requests.get(0).body());
    }

    @Test
    void answers503WithTheAttemptsOnceRetriesAreExhausted() throws Exception {
        provider.script(Outcome.UNAVAILABLE, Outcome.DROP, Outcome.SERVER_ERROR, Outcome.UNAVAILABLE,
                Outcome.SUCCESS);

        HttpResponse<String> response = http.get("/ai/embed?text=hello");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(json(response)).containsEntry("title", "Provider unavailable").containsEntry("attempts", 4);
        assertThat(provider.requestCount()).isEqualTo(4);
    }

    @Test
    void answers502AtOnceWhenTheProviderRefusesTheRequest() throws Exception {
        provider.script(Outcome.BAD_REQUEST);

        HttpResponse<String> response = http.get("/ai/embed?text=hello");

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(json(response)).containsEntry("providerStatus", 400);
        assertThat(provider.requestCount()).isEqualTo(1);
    }
}
