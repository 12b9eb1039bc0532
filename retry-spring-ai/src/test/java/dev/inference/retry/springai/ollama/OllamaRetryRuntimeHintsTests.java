package dev.inference.retry.springai.ollama;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.util.ClassUtils;

class OllamaRetryRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    OllamaRetryRuntimeHintsTests() {
        new OllamaRetryRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @ParameterizedTest
    @ValueSource(strings = { "chatApi", "toolCallingManager", "observationRegistry", "observationConvention" })
    void letTheModelsPrivateFieldsBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OllamaChatModel.class, field)).accepts(this.hints);
    }

    @ParameterizedTest
    @ValueSource(strings = { "ollamaApi", "options", "observationRegistry", "observationConvention" })
    void letTheEmbeddingModelsPrivateFieldsBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OllamaEmbeddingModel.class, field))
            .accepts(this.hints);
    }

    @ParameterizedTest
    @ValueSource(strings = { "restClient", "webClient" })
    void letTheClientsOfItsApiBeRead(String field) {
        assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(OllamaApi.class, field)).accepts(this.hints);
    }

    @Test
    void letTheTransportOfItsRestClientBeRead() {
        assertThat(RuntimeHintsPredicates.reflection()
            .onFieldAccess(ClassUtils.resolveClassName("org.springframework.web.client.DefaultRestClient", null),
                    "clientRequestFactory"))
            .accepts(this.hints);
    }
}
