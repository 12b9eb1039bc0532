package dev.inference.sample.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import dev.inference.client.Authorizer;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.sample.Http1;
import dev.inference.sample.SampleInferenceProperties;
import dev.inference.sample.openai.OpenAiCompatibleClient;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * {@link ChatController} with its {@link ChatFailures}, over a real client talking to a loopback
 * socket that a test controls byte by byte.
 */
// A guard against a hang, not a timing assertion.
@Timeout(60)
class ChatControllerTests {

    /** How long the request may take to end once interrupted before the test gives up on it. */
    private static final long ENDS_WITHIN_SECONDS = 10;

    private ServerSocket server;

    private MockMvc mvc;

    @BeforeEach
    void start() throws IOException {
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        OpenAiCompatibleClient transport = OpenAiCompatibleClient
            .builder(URI.create("http://127.0.0.1:" + this.server.getLocalPort()))
            .build();
        Policy policy = new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1));
        RetryClient client = RetryClient.of(transport, Retrier.builder(policy)
            .name("openai")
            .sleeper((delay, context) -> { })
            .build());
        this.mvc = MockMvcBuilders
            .standaloneSetup(new ChatController(client, Authorizer.none(), new SampleInferenceProperties(),
                    new SyncTaskExecutor()))
            .setControllerAdvice(new ChatFailures())
            .build();
    }

    @AfterEach
    void stop() throws IOException {
        this.server.close();
    }

    @Test
    void answersAnInterruptWhileTheAnswerIsReadAsACancellationNotAProviderFailure() throws Exception {
        CompletableFuture<Void> closedByClient = new CompletableFuture<>();
        Thread provider = new Thread(() -> {
            try (Socket socket = this.server.accept()) {
                InputStream in = new BufferedInputStream(socket.getInputStream());
                Http1.readRequest(in);
                socket.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 500\r\n\r\n{\"choices\":[").getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
                while (in.read() >= 0) {
                    // Until the client hangs up.
                }
            }
            catch (IOException ex) {
                // The client reset the connection: hung up all the same.
            }
            closedByClient.complete(null);
        }, "held-answer");
        provider.setDaemon(true);
        provider.start();
        CompletableFuture<MockHttpServletResponse> answered = new CompletableFuture<>();
        Thread request = new Thread(() -> {
            try {
                answered.complete(this.mvc.perform(get("/chat").param("prompt", "hi")).andReturn().getResponse());
            }
            catch (Throwable ex) {
                answered.completeExceptionally(ex);
            }
        }, "chat-request");
        request.setDaemon(true);
        request.start();
        awaitBlockedIn(request, "readAllBytes");

        request.interrupt();

        MockHttpServletResponse response;
        try {
            response = answered.get(ENDS_WITHIN_SECONDS, TimeUnit.SECONDS);
        }
        catch (TimeoutException ex) {
            throw new AssertionError("The interrupted request did not end within " + ENDS_WITHIN_SECONDS
                    + "s; it is at " + Arrays.toString(request.getStackTrace()), ex);
        }
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getContentAsString()).contains("\"title\":\"Call cancelled\"")
            .contains("\"detail\":\"Interrupted while reading the provider's response\"");
        closedByClient.get(ENDS_WITHIN_SECONDS, TimeUnit.SECONDS);
    }

    /** Waits, polling, until the thread is parked with a method of this name on its stack. */
    private static void awaitBlockedIn(Thread thread, String method) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ENDS_WITHIN_SECONDS);
        while (System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            if ((state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) && Arrays
                .stream(thread.getStackTrace())
                .anyMatch((frame) -> frame.getMethodName().equals(method))) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("The request never blocked in " + method + ": "
                + Arrays.toString(thread.getStackTrace()));
    }
}
