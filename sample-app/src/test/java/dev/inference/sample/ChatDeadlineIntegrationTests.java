package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The call's deadline ({@code sample.inference.timeout}) ending a chat with 504, whether it passes
 * during an attempt or would pass during a wait. The waits here are real, and the test never gets
 * to them: the deadline is shorter than the provider's Retry-After.
 */
@SampleAppTest
@TestPropertySource(properties = { "sample.inference.timeout=300ms", "sample.provider.retry-after=5s" })
class ChatDeadlineIntegrationTests extends AgainstTheSample {

    @Test
    void answers504WhenTheDeadlinePassesDuringAnAttempt() throws Exception {
        provider.script(Outcome.STALL);

        HttpResponse<String> response = http.get("/chat?prompt=hi");

        assertThat(response.statusCode()).isEqualTo(504);
        assertThat(json(response)).isEqualTo(Map.of("title", "Deadline exceeded", "status", 504,
                "detail", "The call's deadline passed while waiting for the provider", "instance", "/chat"));
        assertThat(provider.requestCount()).isEqualTo(1);
    }

    @Test
    void answers504AtOnceWhenTheProvidersRetryAfterOutlastsTheDeadline() throws Exception {
        provider.script(Outcome.RATE_LIMITED, Outcome.SUCCESS);

        HttpResponse<String> response = http.get("/chat?prompt=hi");

        assertThat(response.statusCode()).isEqualTo(504);
        assertThat(json(response)).isEqualTo(Map.of("title", "Deadline exceeded", "status", 504,
                "detail", "The call's deadline would pass during the PT5S wait before attempt 2", "instance", "/chat"));
        assertThat(provider.requestCount()).isEqualTo(1);
    }
}
