package dev.inference.sample.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The provider's slow answers, which the retry starter's timeouts act on, read over a raw socket with
 * the time each line arrived. Time is the behaviour here: a lower bound counted from the request's
 * sending is exact; a gap between two lines this reader saw keeps a margin, because the reader may see
 * the earlier line late. No upper bound is asserted but the test's own timeout.
 */
@Timeout(30)
class FlakyProviderSlowAnswersTests {

    private static final Duration SLOW = Duration.ofMillis(400);

    private static final String STREAM = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there you\"}],"
            + "\"stream\":true}";

    private final FlakyProvider provider = FlakyProvider.start(FaultMix.none(), 1, Duration.ofSeconds(1), 0, null, SLOW);

    @AfterEach
    void stop() {
        this.provider.close();
    }

    /** One line of the answer, with the time since the request was sent. */
    private record Line(String text, long afterNanos) {
    }

    /** Sends the request on a connection of its own and reads every line of the answer until the close. */
    private List<Line> exchange(String body) throws IOException {
        try (Socket socket = new Socket(this.provider.baseUrl().getHost(), this.provider.baseUrl().getPort())) {
            long sent = send(socket, body);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            List<Line> lines = new ArrayList<>();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(new Line(line, System.nanoTime() - sent));
            }
            return lines;
        }
    }

    private static long send(Socket socket, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        // Taken before the write: the provider cannot start any delay before it has the request.
        long sent = System.nanoTime();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.write(bytes);
        out.flush();
        return sent;
    }

    /** The chunks that carry text: the role chunk's delta holds the role first. */
    private static final String CONTENT_DELTA = "\"delta\":{\"content\":";

    private static List<Line> contentChunks(List<Line> lines) {
        return lines.stream().filter((line) -> line.text().contains(CONTENT_DELTA)).toList();
    }

    @Nested
    class Slow {

        @Test
        void answersNothingBeforeTheSlowDelayThenTheWholeAnswer() throws IOException {
            provider.script(Outcome.SLOW);

            List<Line> lines = exchange(STREAM);

            assertThat(lines.get(0).text()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(lines.get(0).afterNanos()).isGreaterThanOrEqualTo(SLOW.toNanos());
            assertThat(lines).extracting(Line::text).contains("data: [DONE]");
        }

        @Test
        void seesAnAbandonedRequestsConnectionClosed() throws Exception {
            provider.script(Outcome.SLOW);
            try (Socket socket = new Socket(provider.baseUrl().getHost(), provider.baseUrl().getPort())) {
                send(socket, STREAM);
                awaitRequests(1);
            }

            awaitValue(provider::openConnections, 0);
        }

        private void awaitRequests(int count) {
            awaitValue(provider::requestCount, count);
        }

        private static void awaitValue(java.util.function.IntSupplier value, int expected) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (value.getAsInt() != expected && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(value.getAsInt()).isEqualTo(expected);
        }
    }

    @Nested
    class KeepAlive {

        @Test
        void sendsOnlyCommentsBeforeTheContentForTheSlowDelay() throws IOException {
            provider.script(Outcome.KEEP_ALIVE);

            List<Line> lines = exchange(STREAM);

            List<Line> content = contentChunks(lines);
            assertThat(lines).filteredOn((line) -> line.afterNanos() < content.get(0).afterNanos())
                .extracting(Line::text)
                .contains(": keep-alive")
                .noneMatch((text) -> text.contains(CONTENT_DELTA));
            assertThat(content.get(0).afterNanos()).isGreaterThanOrEqualTo(SLOW.toNanos());
            assertThat(lines).extracting(Line::text).contains("data: [DONE]");
        }
    }

    @Nested
    class StalledMidStream {

        @Test
        void fallsSilentForTheSlowDelayAfterItsFirstContentChunk() throws IOException {
            provider.script(Outcome.STALL_MID_STREAM);

            List<Line> lines = exchange(STREAM);

            List<Line> content = contentChunks(lines);
            assertThat(content).hasSizeGreaterThan(1);
            // Exact: the second chunk is sent the slow delay after the first, which follows the request.
            assertThat(content.get(1).afterNanos()).isGreaterThanOrEqualTo(SLOW.toNanos());
            // With a margin: this reader may see the first chunk late, which shortens the gap it sees.
            assertThat(content.get(1).afterNanos() - content.get(0).afterNanos())
                .isGreaterThanOrEqualTo(SLOW.toNanos() / 2);
            assertThat(lines).extracting(Line::text).contains("data: [DONE]");
        }
    }

    @Nested
    class Configured {

        @Test
        void refusesASlowDelayShorterThanAMillisecond() {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> FlakyProvider.start(FaultMix.none(), 1, Duration.ofSeconds(1), 0, null, Duration.ZERO))
                .withMessage("slowDelay must be at least 1ms, was PT0S");
        }

        @Test
        void drawsTheSlowAnswersFromTheMixInTheirOrder() {
            FaultMix mix = new FaultMix(0, 0, 0, 0, 0, 0.2, 0.2, 0.2);

            assertThat(mix.pick(0.1)).isEqualTo(Outcome.SLOW);
            assertThat(mix.pick(0.3)).isEqualTo(Outcome.KEEP_ALIVE);
            assertThat(mix.pick(0.5)).isEqualTo(Outcome.STALL_MID_STREAM);
            assertThat(mix.pick(0.7)).isEqualTo(Outcome.SUCCESS);
        }
    }
}
