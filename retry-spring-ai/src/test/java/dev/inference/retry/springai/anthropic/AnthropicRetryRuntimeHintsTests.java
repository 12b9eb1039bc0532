package dev.inference.retry.springai.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.backends.Backend;
import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.core.http.HttpClient;
import com.anthropic.services.async.MessageServiceAsync;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

class AnthropicRetryRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    AnthropicRetryRuntimeHintsTests() {
        new AnthropicRetryRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @ParameterizedTest
    @CsvSource(textBlock = """
            org.springframework.ai.anthropic.AnthropicChatModel, toolCallingManager
            org.springframework.ai.anthropic.AnthropicChatModel, observationRegistry
            org.springframework.ai.anthropic.AnthropicChatModel, observationConvention
            com.anthropic.client.AnthropicClientImpl, clientOptions
            com.anthropic.client.AnthropicClientAsyncImpl, clientOptions
            com.anthropic.core.ClientOptions, originalHttpClient
            com.anthropic.core.http.PhantomReachableClosingHttpClient, httpClient
            org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient, okHttpClient
            org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient, backend
            org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient, ownsDispatcherExecutor
            """)
    void letThePrivateFieldsTheRebuildReadsBeRead(Class<?> type, String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(type, field)).accepts(this.hints);
    }

    @Test
    void letSpringAisTransportBeMadeAgain() throws NoSuchMethodException {
        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(SpringAiAnthropicHttpClient.class
            .getDeclaredConstructor(OkHttpClient.class, Backend.class, boolean.class))).accepts(this.hints);
    }

    @ParameterizedTest
    @ValueSource(classes = { AnthropicClientAsync.class, MessageServiceAsync.class,
            MessageServiceAsync.WithRawResponse.class, HttpClient.class })
    void letTheProxiesOfTheSdksInterfacesBeMade(Class<?> type) {
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(type)).accepts(this.hints);
    }
}
