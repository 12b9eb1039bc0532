package dev.inference.retry.springai;

import java.lang.reflect.Field;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * What a native image needs to rebuild Ollama chat models on retried clients: the private fields
 * {@link OllamaChatModelRebuild} reads.
 */
final class OllamaRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        for (String name : new String[] { "chatApi", "toolCallingManager", "observationRegistry",
                "observationConvention" }) {
            field(hints, OllamaChatModel.class, name);
        }
        field(hints, OllamaApi.class, "restClient");
        field(hints, OllamaApi.class, "webClient");
    }

    private static void field(RuntimeHints hints, Class<?> type, String name) {
        Field field = ReflectionUtils.findField(type, name);
        if (field != null) {
            hints.reflection().registerField(field);
        }
    }
}
