package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.RetryClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A real web application with the actuator and metrics, started as a user would start it, with
 * every auto-configuration on the class path.
 */
@ExtendWith(OutputCaptureExtension.class)
class InferenceRetryApplicationTests {

    private static ConfigurableApplicationContext context;

    private final HttpClient http = HttpClient.newHttpClient();

    /** Starts once for the class; the output capture, begun before it, sees the whole startup. */
    @BeforeAll
    static void start() {
        SpringApplication application = new SpringApplication(WebApplication.class);
        application.setMainApplicationClass(WebApplication.class);
        context = application.run("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--management.endpoints.web.exposure.include=inferenceretry,metrics",
                "--inference.retry.stable-retries=2", "--inference.retry.stable-delay=200ms",
                "--inference.retry.max-attempts=5", "--inference.retry.max-delay=1s",
                "--inference.retry.clients.local.max-attempts=2", "--inference.retry.clients.local.stable-retries=0",
                "--inference.retry.clients.local.stable-delay=50ms");
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private String get(String path) throws IOException, InterruptedException {
        String port = context.getEnvironment().getProperty("local.server.port");
        HttpResponse<String> response = this.http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("status of " + path).isEqualTo(200);
        return response.body();
    }

    @Test
    void startsWithoutABeanMissedByAPostProcessor(CapturedOutput output) {
        assertThat(context.getBean("openai")).isInstanceOf(RetryClient.class);
        assertThat(output).contains("Started InferenceRetryApplicationTests.WebApplication")
            .doesNotContain("not eligible for getting processed by all BeanPostProcessors");
    }

    @Test
    void servesEveryRetriedClientAtTheInferenceRetryEndpoint() throws Exception {
        assertThat(get("/actuator/inferenceretry")).isEqualTo("""
                {"clients":{"openai":{"name":"openai",\
                "policy":{"stableRetries":2,"stableDelay":"PT0.2S","maxAttempts":5,"maxDelay":"PT1S"},\
                "schedule":[{"failedAttempt":1,"slot":"PT0.2S","min":"PT0.18S","max":"PT0.22S"},\
                {"failedAttempt":2,"slot":"PT0.2S","min":"PT0.18S","max":"PT0.22S"},\
                {"failedAttempt":3,"slot":"PT0.4S","min":"PT0.36S","max":"PT0.44S"},\
                {"failedAttempt":4,"slot":"PT0.8S","min":"PT0.72S","max":"PT0.88S"}]},\
                "local":{"name":"local",\
                "policy":{"stableRetries":0,"stableDelay":"PT0.05S","maxAttempts":2,"maxDelay":"PT1S"},\
                "schedule":[{"failedAttempt":1,"slot":"PT0.1S","min":"PT0.09S","max":"PT0.11S"}]}},\
                "fallbacks":{}}""");
    }

    @Test
    void publishesTheExhaustedCounterOfALazyClientBeforeItIsCreated() throws Exception {
        assertThat(context.getBeanFactory().containsSingleton("local")).isFalse();
        assertThat(get("/actuator/metrics/inference.retry.exhausted?tag=client:local&tag=operation:stream"))
            .contains("\"measurements\":[{\"statistic\":\"COUNT\",\"value\":0.0}]");
    }

    @Test
    void countsAttemptsAtTheMetricsEndpoint() throws Exception {
        context.getBean(Script.class).failNext(new HttpStatusException(400, "bad request", null));
        String attempts = "/actuator/metrics/inference.retry.attempts?tag=client:openai&tag=outcome:failure";
        InferenceClient openai = context.getBean("openai", InferenceClient.class);
        try {
            openai.invoke(InferenceRequest.of("model", "Hello"));
        }
        catch (HttpStatusException expected) {
            // A permanent failure: one attempt, counted as such.
        }
        assertThat(get(attempts))
            .contains("\"measurements\":[{\"statistic\":\"COUNT\",\"value\":1.0}]")
            .contains("{\"tag\":\"error\",\"values\":[\"http_400\"]}");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ VirtualTime.class, TestClients.LazyLocal.class })
    static class WebApplication {
    }
}
