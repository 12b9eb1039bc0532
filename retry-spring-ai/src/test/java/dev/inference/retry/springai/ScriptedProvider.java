package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A WireMock server on a free loopback port standing in for a provider's chat endpoint (OpenAI's chat
 * completions unless told otherwise), with the two ways the tests script it: answers in turn, or one
 * answer always. Registered as a static extension, it runs for the whole test class.
 */
public final class ScriptedProvider extends WireMockServer implements BeforeAllCallback, AfterAllCallback {

    private final String path;

    private ScriptedProvider(String path) {
        super(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());
        this.path = path;
    }

    /**
     * Returns a provider of OpenAI's chat completions endpoint, not yet started.
     *
     * @return the provider
     */
    public static ScriptedProvider onLoopback() {
        return onLoopback(OpenAiWire.PATH);
    }

    /**
     * Returns a provider of a chat endpoint, not yet started.
     *
     * @param path the endpoint's path, which every request is a {@code POST} to
     * @return the provider
     */
    public static ScriptedProvider onLoopback(String path) {
        return new ScriptedProvider(path);
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
    public void script(ResponseDefinitionBuilder... responses) {
        for (int i = 0; i < responses.length; i++) {
            String state = (i == 0) ? STARTED : "answer " + i;
            stubFor(post(urlEqualTo(this.path)).inScenario("script")
                .whenScenarioStateIs(state)
                .willReturn(responses[i])
                .willSetStateTo((i + 1 < responses.length) ? "answer " + (i + 1) : state));
        }
    }

    /** Answers every request with this response. */
    public void always(ResponseDefinitionBuilder response) {
        stubFor(post(urlEqualTo(this.path)).willReturn(response));
    }

    /** Returns how many requests the endpoint received. */
    public int requests() {
        return countRequestsMatching(postRequestedFor(urlEqualTo(this.path)).build()).getCount();
    }
}
