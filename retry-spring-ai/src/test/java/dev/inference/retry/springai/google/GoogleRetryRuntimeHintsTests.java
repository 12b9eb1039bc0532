package dev.inference.retry.springai.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.ApiClient;
import com.google.genai.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

class GoogleRetryRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    GoogleRetryRuntimeHintsTests() {
        new GoogleRetryRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @ParameterizedTest
    @ValueSource(strings = { "genAiClient", "toolCallingManager", "observationRegistry", "observationConvention" })
    void letTheModelsPrivateFieldsBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(GoogleGenAiChatModel.class, field))
            .accepts(this.hints);
    }

    @Test
    void letTheSdkClientsApiClientAndItsOptionsBeRead() {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(Client.class, "apiClient")).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(ApiClient.class, "clientOptions"))
            .accepts(this.hints);
    }
}
