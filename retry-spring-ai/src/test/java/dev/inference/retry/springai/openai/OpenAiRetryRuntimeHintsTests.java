package dev.inference.retry.springai.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.PhantomReachableClosingHttpClient;
import com.openai.services.async.ChatServiceAsync;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

class OpenAiRetryRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    OpenAiRetryRuntimeHintsTests() {
        new OpenAiRetryRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @ParameterizedTest
    @ValueSource(strings = { "openAiClient", "openAiClientAsync", "toolCallingManager", "observationRegistry",
            "observationConvention" })
    void letTheModelsPrivateFieldsBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OpenAiChatModel.class, field)).accepts(this.hints);
    }

    @ParameterizedTest
    @ValueSource(strings = { "openAiClient", "metadataMode", "observationRegistry", "observationConvention" })
    void letTheEmbeddingModelsPrivateFieldsBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OpenAiEmbeddingModel.class, field))
            .accepts(this.hints);
    }

    @Test
    void letTheSdkClientsOptionsAndTransportBeRead() {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OpenAIClientImpl.class, "clientOptions"))
            .accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OpenAIClientAsyncImpl.class, "clientOptions"))
            .accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(ClientOptions.class, "originalHttpClient"))
            .accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(PhantomReachableClosingHttpClient.class,
                "httpClient")).accepts(this.hints);
    }

    @Test
    void letSpringAisTransportBeMadeAgain() throws NoSuchMethodException {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(SpringAiOpenAiHttpClient.class,
                "ownsDispatcherExecutor")).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(SpringAiOpenAiHttpClient.class
            .getDeclaredConstructor(OkHttpClient.class, boolean.class))).accepts(this.hints);
    }

    @Test
    void letTheClientWrappersBeMade() {
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(OpenAIClientAsync.class)).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(ChatServiceAsync.class)).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(ChatCompletionServiceAsync.class)).accepts(this.hints);
    }
}
