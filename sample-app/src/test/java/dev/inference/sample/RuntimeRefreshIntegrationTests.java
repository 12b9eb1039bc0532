package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The sample's policy changed while it runs, as docs/sample-app.md shows: {@code POST /actuator/env}
 * (Spring Cloud Context) publishes the change, and the next call uses it; an invalid value is refused
 * whole. The context is discarded afterwards, so that no other test meets the changed policy.
 */
@SampleAppTest
@Import(VirtualTime.class)
@DirtiesContext
@SuppressWarnings("unchecked")
class RuntimeRefreshIntegrationTests extends AgainstTheSample {

    @Test
    void aPostToTheEnvEndpointChangesThePolicyOfTheNextCallAndAnInvalidOneIsRefusedWhole() throws Exception {
        HttpResponse<String> posted = http.post("/actuator/env",
                "{\"name\":\"inference.retry.clients.openai.max-attempts\",\"value\":\"2\"}");
        assertThat(posted.statusCode()).isEqualTo(200);
        provider.script(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.SUCCESS);

        assertThat(http.get("/chat?prompt=hi").statusCode()).isEqualTo(503);
        assertThat(provider.requestCount()).isEqualTo(2);
        assertThat(http.metric("inference.retry.refresh", "result:applied")).isEqualTo(1);

        http.post("/actuator/env", "{\"name\":\"inference.retry.stable-delay\",\"value\":\"-1s\"}");
        provider.reset();
        provider.script(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.SUCCESS);

        assertThat(http.get("/chat?prompt=hi").statusCode()).isEqualTo(503);
        assertThat(provider.requestCount()).isEqualTo(2);
        assertThat(http.metric("inference.retry.refresh", "result:rejected")).isEqualTo(1);
        Map<String, Object> refresh = (Map<String, Object>) json(http.get("/actuator/inferenceretry")).get("refresh");
        assertThat(refresh).containsEntry("result", "rejected");
        assertThat((String) refresh.get("reason")).contains("inference.retry.stable-delay = PT-1S is invalid");
    }
}
