package dev.inference.sample.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.sample.cluster.Cluster.Instance;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The sample app has Spring Data Redis on its class path for {@code inference.retry.cooldown.store=redis},
 * and needs no Redis without it. Its {@code spring.data.redis.port} points at a loopback port of the
 * test's that counts the connections made to it and closes each at once, as a Redis that refuses
 * would.
 */
// A guard against a hang, not a timing assertion.
@Timeout(60)
class RedisConnectionIntegrationTests {

    private final Cluster cluster = new Cluster();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final AtomicInteger redisConnections = new AtomicInteger();

    private ServerSocket redisPort;

    @BeforeEach
    void listenWhereRedisWouldBe() throws IOException {
        ExecutorService acceptor = Executors.newSingleThreadExecutor();
        this.cluster.open(() -> {
            acceptor.shutdownNow();
            acceptor.awaitTermination(10, TimeUnit.SECONDS);
        });
        // Closed before the acceptor, whose thread it ends.
        this.redisPort = this.cluster.open(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        acceptor.execute(() -> {
            while (!this.redisPort.isClosed()) {
                try {
                    Socket connection = this.redisPort.accept();
                    this.redisConnections.incrementAndGet();
                    connection.close();
                }
                catch (IOException ex) {
                    // Closed: the test is over.
                }
            }
        });
    }

    @AfterEach
    void closeEverything() {
        this.cluster.close();
    }

    private Instance startSample(String... more) {
        List<String> properties = new ArrayList<>(List.of("--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + this.redisPort.getLocalPort(), "--spring.data.redis.timeout=1s",
                "--sample.provider.faults.rate-limited=0", "--sample.provider.faults.unavailable=0",
                "--sample.provider.faults.server-error=0", "--sample.provider.faults.dropped=0",
                "--sample.provider.faults.cut=0"));
        properties.addAll(List.of(more));
        return this.cluster.start(1, properties).get(0);
    }

    private HttpResponse<String> get(Instance instance, String path) throws Exception {
        int port = ((WebServerApplicationContext) instance.context()).getWebServer().getPort();
        return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withoutTheRedisStoreAnswersAndStaysUpWithoutEverConnectingToRedis() throws Exception {
        Instance sample = startSample();

        HttpResponse<String> chat = get(sample, "/chat?prompt=Hello");
        HttpResponse<String> health = get(sample, "/actuator/health");

        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(chat.body()).contains("\"output\":\"You said: Hello\"");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        assertThat(this.redisConnections).hasValue(0);
    }

    @Test
    void withTheRedisStoreConnectsToTheConfiguredRedisAndStaysUpWhileItRefuses() throws Exception {
        Instance sample = startSample("--inference.retry.cooldown.store=redis");

        awaitConnection(Duration.ofSeconds(10));
        HttpResponse<String> chat = get(sample, "/chat?prompt=Hello");
        HttpResponse<String> health = get(sample, "/actuator/health");

        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
    }

    private void awaitConnection(Duration deadline) {
        long start = System.nanoTime();
        while (this.redisConnections.get() == 0) {
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("time waited for a connection to the configured Redis")
                .isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }
}
