package dev.inference.sample;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static dev.inference.sample.SampleHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample pointed at a provider that fails the ways networks and providers do, with WireMock's own
 * faults and statuses: the same fourteen scenarios through {@code /chat} (the sample's own client) and
 * {@code /ai/chat} (Spring AI's OpenAI model, which the starter retries beneath the bean), each answered
 * the same way after exactly the same number of requests, with the sample's policy (max-attempts 4); on
 * {@code /ai/chat}, a call OpenAI's model cannot answer is answered by the backup of the sample's
 * fallback chain.
 *
 * <p>Every scenario begins with a call that succeeds, so that each client has a kept-alive connection in
 * its pool when the faults begin: a client that retried a failed pooled connection by itself would send
 * one request more than its attempts. Waits run in virtual time.
 */
@SampleAppTest
@Import(VirtualTime.class)
class TransportFaultsIntegrationTests {

    private static final String PATH = "/v1/chat/completions";

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
            "choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],\
            "usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}""";

    private static final WireMockServer provider = new WireMockServer(
            wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    static {
        provider.start();
    }

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void pointTheSampleAtTheProvider(DynamicPropertyRegistry registry) {
        registry.add("sample.inference.base-url", () -> provider.baseUrl());
    }

    @AfterAll
    static void stopTheProvider() {
        provider.stop();
    }

    @BeforeEach
    void resetTheProvider() {
        provider.resetAll();
    }

    /** One way a call meets the provider: its answers in turn (the last one for every request after). */
    enum Scenario {

        RESET_THEN_ANSWER(200, 2, fault(Fault.CONNECTION_RESET_BY_PEER), answer()),
        EMPTY_RESPONSE_THEN_ANSWER(200, 2, fault(Fault.EMPTY_RESPONSE), answer()),
        MALFORMED_CHUNK_THEN_ANSWER(200, 2, fault(Fault.MALFORMED_RESPONSE_CHUNK), answer()),
        RANDOM_DATA_THEN_ANSWER(200, 2, fault(Fault.RANDOM_DATA_THEN_CLOSE), answer()),
        RESET_ALWAYS(503, 4, fault(Fault.CONNECTION_RESET_BY_PEER)),
        EMPTY_RESPONSE_ALWAYS(503, 4, fault(Fault.EMPTY_RESPONSE)),
        MALFORMED_CHUNK_ALWAYS(503, 4, fault(Fault.MALFORMED_RESPONSE_CHUNK)),
        RANDOM_DATA_ALWAYS(503, 4, fault(Fault.RANDOM_DATA_THEN_CLOSE)),
        RATE_LIMITED_THEN_ANSWER(200, 2, status(429).withHeader("Retry-After", "1"), answer()),
        UNAVAILABLE_THEN_ANSWER(200, 2, status(503), answer()),
        THREE_SERVER_ERRORS_THEN_ANSWER(200, 4, status(500), status(502), status(504), answer()),
        UNAVAILABLE_ALWAYS(503, 4, status(503)),
        BAD_REQUEST(502, 1, status(400)),
        UNAUTHORIZED(502, 1, status(401));

        private final int answered;

        private final int requests;

        private final List<ResponseDefinitionBuilder> responses;

        Scenario(int answered, int requests, ResponseDefinitionBuilder... responses) {
            this.answered = answered;
            this.requests = requests;
            this.responses = List.of(responses);
        }

        /**
         * How {@code /ai/chat} answers: through the sample's fallback chain, whose backup (Anthropic's model,
         * answering on this provider too) answers when OpenAI's retries run out or its key is refused.
         */
        int answeredThroughTheChain() {
            return (this.answered == 503 || this == UNAUTHORIZED) ? 200 : this.answered;
        }

        /** The OpenAI requests of {@code /ai/chat}: a 429's Retry-After makes the chain ask the backup at once. */
        int requestsThroughTheChain() {
            return (this == RATE_LIMITED_THEN_ANSWER) ? 1 : this.requests;
        }
    }

    static Stream<Arguments> scenariosOnEachEndpoint() {
        return Arrays.stream(Scenario.values())
            .flatMap((scenario) -> Stream.of(Arguments.of("/chat", scenario), Arguments.of("/ai/chat", scenario)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("scenariosOnEachEndpoint")
    void answersAfterExactlyTheRequestsItsAttemptsMade(String endpoint, Scenario scenario) throws Exception {
        List<ResponseDefinitionBuilder> script = new ArrayList<>();
        script.add(answer());
        script.addAll(scenario.responses);
        script(script);
        SampleHttp http = new SampleHttp(this.port);
        assertThat(http.get(endpoint + "?prompt=warm").statusCode()).as("the call that pools a connection")
            .isEqualTo(200);

        HttpResponse<String> response = http.get(endpoint + "?prompt=hi");

        boolean chain = endpoint.equals("/ai/chat");
        assertThat(response.statusCode()).as(response.body())
            .isEqualTo(chain ? scenario.answeredThroughTheChain() : scenario.answered);
        if (response.statusCode() == 503) {
            assertThat(json(response)).containsEntry("attempts", 4);
        }
        assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo(PATH)).build()).getCount())
            .isEqualTo(1 + (chain ? scenario.requestsThroughTheChain() : scenario.requests));
    }

    /**
     * Answers the requests with these responses in turn; the last one answers every request after it. The
     * backup of {@code /ai/chat}'s chain, Anthropic's model, is always answered.
     */
    private static void script(List<ResponseDefinitionBuilder> responses) {
        provider.stubFor(post(urlEqualTo("/v1/messages")).willReturn(aResponse()
            .withHeader("Content-Type", "application/json")
            .withBody("""
                    {"id":"msg_1","type":"message","role":"assistant","model":"claude-sample",\
                    "content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","stop_sequence":null,\
                    "usage":{"input_tokens":1,"output_tokens":1}}""")));
        for (int i = 0; i < responses.size(); i++) {
            String state = (i == 0) ? STARTED : "answer " + i;
            provider.stubFor(post(urlEqualTo(PATH)).inScenario("script")
                .whenScenarioStateIs(state)
                .willReturn(responses.get(i))
                .willSetStateTo((i + 1 < responses.size()) ? "answer " + (i + 1) : state));
        }
    }

    private static ResponseDefinitionBuilder answer() {
        return aResponse().withHeader("Content-Type", "application/json").withBody(ANSWER);
    }

    private static ResponseDefinitionBuilder status(int status) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json")
            .withBody("{\"error\":{\"message\":\"simulated " + status + "\"}}");
    }

    private static ResponseDefinitionBuilder fault(Fault fault) {
        return aResponse().withFault(fault);
    }
}
