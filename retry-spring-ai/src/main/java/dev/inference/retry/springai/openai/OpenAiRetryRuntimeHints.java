package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClientAsync;
import com.openai.core.http.HttpClient;
import com.openai.services.async.ChatServiceAsync;
import com.openai.services.async.chat.ChatCompletionServiceAsync;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.internal.OpenAiInternals;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild OpenAI's models on retried clients: the private members the
 * rebuilds read or call ({@link OpenAiInternals#MEMBERS}), and the JDK proxies this module makes of the
 * SDK's interfaces (the clients of {@link CancellableStreams} and the HTTP client of
 * {@link RetryingHttpClient}; a response whose body was read within its attempt is a class,
 * {@link OpenAiHttp}'s).
 */
final class OpenAiRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        OpenAiInternals.MEMBERS.forEach((member) -> member.registerHint(hints));
        hints.proxies().registerJdkProxy(OpenAIClientAsync.class);
        hints.proxies().registerJdkProxy(ChatServiceAsync.class);
        hints.proxies().registerJdkProxy(ChatCompletionServiceAsync.class);
        hints.proxies().registerJdkProxy(HttpClient.class);
    }
}
