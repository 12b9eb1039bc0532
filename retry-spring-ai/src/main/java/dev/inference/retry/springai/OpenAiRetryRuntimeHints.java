package dev.inference.retry.springai;

import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.services.async.ChatServiceAsync;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import java.lang.reflect.Field;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * What a native image needs to rebuild OpenAI chat models on retried clients: the private fields
 * {@link OpenAiChatModelRebuild} reads, and the JDK proxies {@link CancellableStreams} makes.
 */
final class OpenAiRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        field(hints, OpenAiChatModel.class, "openAiClient");
        field(hints, OpenAiChatModel.class, "openAiClientAsync");
        field(hints, OpenAiChatModel.class, "toolCallingManager");
        field(hints, OpenAiChatModel.class, "observationRegistry");
        field(hints, OpenAiChatModel.class, "observationConvention");
        field(hints, OpenAIClientImpl.class, "clientOptions");
        field(hints, OpenAIClientAsyncImpl.class, "clientOptions");
        field(hints, ClientOptions.class, "originalHttpClient");
        hints.proxies().registerJdkProxy(OpenAIClientAsync.class);
        hints.proxies().registerJdkProxy(ChatServiceAsync.class);
        hints.proxies().registerJdkProxy(ChatCompletionServiceAsync.class);
    }

    private static void field(RuntimeHints hints, Class<?> type, String name) {
        Field field = ReflectionUtils.findField(type, name);
        if (field != null) {
            hints.reflection().registerField(field);
        }
    }
}
