package dev.inference.retry.springai.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SseScriptServerTests {

    private final SseScriptServer server = SseScriptServer.start();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        this.server.close();
    }

    private HttpResponse<String> post(String body) throws Exception {
        return this.http.send(HttpRequest.newBuilder(this.server.baseUrl().resolve("/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitValue(IntSupplier value, int expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsInt() != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(value.getAsInt()).isEqualTo(expected);
    }

    @Nested
    class Streams {

        @Test
        void writesKeepAlivesPingsAndEventsInTheScriptsOrder() throws Exception {
            server.enqueue((exchange) -> exchange.sse()
                .comment("keep-alive")
                .event("ping", "{}")
                .data("{\"n\":1}")
                .data("[DONE]"));

            HttpResponse<String> response = post("{\"stream\":true}");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).contains("text/event-stream");
            assertThat(response.body())
                .isEqualTo(": keep-alive\n\nevent: ping\ndata: {}\n\ndata: {\"n\":1}\n\ndata: [DONE]\n\n");
        }

        @Test
        void pausesForAtLeastTheGivenTime() throws Exception {
            Duration pause = Duration.ofMillis(200);
            server.enqueue((exchange) -> exchange.sse().pause(pause).data("[DONE]"));

            long start = System.nanoTime();
            post("{}");

            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(pause.toNanos());
        }

        @Test
        void sendsAWholeJsonAnswerWithItsHeaders() throws Exception {
            server.enqueue((exchange) -> exchange.json(503, Map.of("x-should-retry", "false"), "{\"error\":{}}"));

            HttpResponse<String> response = post("{}");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("x-should-retry")).contains("false");
            assertThat(response.body()).isEqualTo("{\"error\":{}}");
        }

        @Test
        void answers500WhenNoScriptIsLeft() throws Exception {
            assertThat(post("{}").statusCode()).isEqualTo(500);
        }
    }

    @Nested
    class Requests {

        @Test
        void recordsEachRequestWithItsBody() throws Exception {
            server.enqueue((exchange) -> exchange.json(200, Map.of(), "{}"), (exchange) -> exchange.json(200, Map.of(), "{}"));

            post("{\"a\":1}");
            post("{\"a\":2}");

            assertThat(server.requestCount()).isEqualTo(2);
            assertThat(server.requests()).extracting(SseScriptServer.Request::body).containsExactly("{\"a\":1}", "{\"a\":2}");
            assertThat(server.requests().get(0).path()).isEqualTo("/v1/chat/completions");
        }
    }

    @Nested
    class Connections {

        @Test
        void seesAHungRequestAbandonedWhenItsClientClosesTheConnection() throws Exception {
            server.enqueue(SseScriptServer.Exchange::hang);
            try (Socket socket = new Socket("127.0.0.1", server.baseUrl().getPort())) {
                OutputStream out = socket.getOutputStream();
                out.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.UTF_8));
                out.flush();
                awaitValue(server::requestCount, 1);
                assertThat(server.openConnections()).isOne();
            }

            awaitValue(server::closedByClient, 1);
            awaitValue(server::openConnections, 0);
        }

        @Test
        void seesAStreamAbandonedDuringAPause() throws IOException {
            server.enqueue((exchange) -> exchange.sse().data("{\"n\":1}").pause(Duration.ofMinutes(1)));
            try (Socket socket = new Socket("127.0.0.1", server.baseUrl().getPort())) {
                socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.UTF_8));
                assertThat(socket.getInputStream().read()).isEqualTo('H');
            }

            awaitValue(server::closedByClient, 1);
            awaitValue(server::openConnections, 0);
        }

        @Test
        void countsNoAbandonmentForAScriptThatEnded() throws Exception {
            server.enqueue((exchange) -> exchange.sse().data("[DONE]"));

            post("{}");

            awaitValue(server::openConnections, 0);
            assertThat(server.closedByClient()).isZero();
        }
    }
}
