package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.ScriptedReader;
import org.junit.jupiter.api.Test;

class InferenceClientTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    @Test
    void invokesWithTheBackgroundContextByDefault() {
        ScriptedClient client = ScriptedClient.script().thenRespond("Hello");
        assertThat(client.invoke(REQUEST).output()).isEqualTo("Hello");
        assertThat(client.contexts()).containsExactly(CallContext.background());
    }

    @Test
    void streamsWithTheBackgroundContextByDefault() {
        ScriptedReader reader = ScriptedReader.completing();
        ScriptedClient client = ScriptedClient.script().thenOpen(reader);
        assertThat(client.stream(REQUEST)).isSameAs(reader);
        assertThat(client.contexts()).containsExactly(CallContext.background());
    }
}
