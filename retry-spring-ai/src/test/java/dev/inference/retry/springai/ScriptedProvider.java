package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A WireMock server on a free loopback port standing in for OpenAI's chat completions endpoint, with
 * the two ways the tests script it: answers in turn, or one answer always. Registered as a static
 * extension, it runs for the whole test class.
 */
final class ScriptedProvider extends WireMockServer implements BeforeAllCallback, AfterAllCallback {

    private ScriptedProvider() {
        super(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());
    }

    /**
     * Returns a provider, not yet started.
     *
     * @return the provider
     */
    static ScriptedProvider onLoopback() {
        return new ScriptedProvider();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!isRunning()) {
            start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // Nested classes end before their outer class: only the class that registered it stops it.
        if (context.getRequiredTestClass().getEnclosingClass() == null && isRunning()) {
            stop();
        }
    }

    /** Answers the requests with these responses in turn; the last one answers every request after it. */
    void script(ResponseDefinitionBuilder... responses) {
        for (int i = 0; i < responses.length; i++) {
            String state = (i == 0) ? STARTED : "answer " + i;
            stubFor(post(urlEqualTo(OpenAiWire.PATH)).inScenario("script")
                .whenScenarioStateIs(state)
                .willReturn(responses[i])
                .willSetStateTo((i + 1 < responses.length) ? "answer " + (i + 1) : state));
        }
    }

    /** Answers every request with this response. */
    void always(ResponseDefinitionBuilder response) {
        stubFor(post(urlEqualTo(OpenAiWire.PATH)).willReturn(response));
    }
}
