package dev.inference.sample;

import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The three timeouts of the retry starter acting on the sample's own client, against the embedded
 * provider over loopback: a hung answer abandoned and retried ({@code attempt-timeout}), a stream of
 * keep-alives abandoned and retried ({@code first-token-timeout}), a stream stalled mid-way ended
 * ({@code stream-idle-timeout}). Real time: each scenario takes at least its timeout, and far less
 * than the provider's slow delay.
 */
@SampleAppTest
@TestPropertySource(properties = { "inference.retry.attempt-timeout=500ms",
        "inference.retry.first-token-timeout=500ms", "inference.retry.stream-idle-timeout=500ms",
        "sample.provider.slow-delay=20s" })
class ChatTimeoutsIntegrationTests extends AgainstTheSample {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    /** Far below the provider's 20s slow delay, far above what a busy machine adds. */
    private static final Duration WITHIN = Duration.ofSeconds(10);

    /** Calls the sample, and checks the answer took at least a timeout and far less than a slow answer. */
    private HttpResponse<String> getAfterATimeout(String pathAndQuery, String accept) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = http.get(pathAndQuery, accept);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).isGreaterThanOrEqualTo(TIMEOUT).isLessThan(WITHIN);
        return response;
    }

    @Test
    void abandonsAHungAnswerAndRetriesIt() throws Exception {
        provider.script(Outcome.SLOW, Outcome.SUCCESS);

        HttpResponse<String> response = getAfterATimeout("/chat?prompt=hi", "*/*");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response)).isEqualTo(Map.of("output", "You said: hi", "attempts", 2));
        assertThat(provider.requestCount()).isEqualTo(2);
    }

    @Test
    void abandonsAStreamOfKeepAlivesAndRetriesIt() throws Exception {
        provider.script(Outcome.KEEP_ALIVE, Outcome.SUCCESS);

        HttpResponse<String> response = getAfterATimeout("/chat/stream?prompt=hi", "text/event-stream");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).endsWith("event:done\ndata:{\"attempts\":2}\n\n");
        assertThat(provider.requestCount()).isEqualTo(2);
    }

    @Test
    void endsAStreamStalledMidWayWithAnErrorEventAndNeverRetriesIt() throws Exception {
        provider.script(Outcome.STALL_MID_STREAM, Outcome.SUCCESS);

        HttpResponse<String> response = getAfterATimeout("/chat/stream?prompt=hi", "text/event-stream");

        assertThat(response.statusCode()).isEqualTo(200);
        String error = response.body().substring(response.body().indexOf("event:error\ndata:")
                + "event:error\ndata:".length());
        assertThat(json(error.strip())).containsEntry("title", "Provider stream stalled")
            .containsEntry("status", 504)
            .containsEntry("attempts", 1);
        assertThat(response.body()).startsWith("event:chunk\n");
        assertThat(provider.requestCount()).isEqualTo(1);
    }
}
