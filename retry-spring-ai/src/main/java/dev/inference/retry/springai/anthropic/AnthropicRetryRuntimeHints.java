package dev.inference.retry.springai.anthropic;

import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.core.http.HttpClient;
import com.anthropic.services.async.MessageServiceAsync;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.internal.AnthropicInternals;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to rebuild Anthropic chat models on retried clients: the private members
 * the rebuild reads or calls ({@link AnthropicInternals#MEMBERS}), and the JDK proxies this module
 * makes of the SDK's interfaces (the clients of {@link CancellableAnthropicStreams} and the HTTP client
 * of {@link RetryingHttpClient}; a response whose body was read within its attempt is a class,
 * {@link AnthropicHttp}'s).
 */
final class AnthropicRetryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        AnthropicInternals.MEMBERS.forEach((member) -> member.registerHint(hints));
        hints.proxies().registerJdkProxy(AnthropicClientAsync.class);
        hints.proxies().registerJdkProxy(MessageServiceAsync.class);
        hints.proxies().registerJdkProxy(MessageServiceAsync.WithRawResponse.class);
        hints.proxies().registerJdkProxy(HttpClient.class);
    }
}
