package dev.inference.retry.springai.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.PhantomReachableClosingHttpClient;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.exchange.AbandonableCalls;
import dev.inference.retry.springai.exchange.RetryingHttpClient;
import dev.inference.retry.springai.exchange.StreamCalls;
import dev.inference.retry.springai.exchange.StreamHandOff;
import dev.inference.retry.springai.internal.ForwardingProxy;
import dev.inference.retry.springai.internal.OpenAiInternals;
import dev.inference.retry.time.WaitScheduler;
import java.util.List;
import java.util.concurrent.Executor;
import okhttp3.OkHttpClient;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * The OpenAI Java SDK's clients (4.49.0) as the rebuilds of its Spring AI models need them: their
 * options, which the SDK keeps private, and the same client re-optioned with its transport decorated by
 * a {@link RetryingHttpClient} and its own retries off ({@code maxRetries(0)}). Spring AI's OkHttp
 * transport is made again with OkHttp's own retry of a failed connection off, so that each attempt is
 * one request, and with {@link AbandonableCalls}, so that a timed attempt can be abandoned on its
 * caller's thread ({@link #oneRequestPerCall}). The private members of the SDK's clients and of Spring AI's
 * transport it reads are declared in {@link OpenAiInternals}.
 *
 * <p>Trap: the transport made again shares its dispatcher with Spring AI's, which the SDK closes once
 * nothing holds the wrapper it put around it: the copy holds it.
 */
final class OpenAiClients {

    private OpenAiClients() {
    }

    /**
     * Returns the options of the SDK's own synchronous client.
     *
     * @param client an {@link OpenAIClientImpl}
     * @param beanName the bean being rebuilt, for the exception
     * @return its options
     * @throws dev.inference.retry.springai.ModelNotRetriableException if they cannot be read
     */
    static ClientOptions options(OpenAIClient client, String beanName) {
        return OpenAiInternals.CLIENT_OPTIONS.read(client, beanName);
    }

    /**
     * Returns the options of the SDK's own asynchronous client.
     *
     * @param client an {@link OpenAIClientAsyncImpl}
     * @param beanName the bean being rebuilt, for the exception
     * @return its options
     * @throws dev.inference.retry.springai.ModelNotRetriableException if they cannot be read
     */
    static ClientOptions options(OpenAIClientAsync client, String beanName) {
        return OpenAiInternals.CLIENT_ASYNC_OPTIONS.read(client, beanName);
    }

    /**
     * Tells whether a client's transport is already a {@link RetryingHttpClient}.
     *
     * @param options the client's options
     * @param beanName the bean, for the exception
     * @return {@code true} if its exchanges are retried
     */
    static boolean isRetried(ClientOptions options, String beanName) {
        return ForwardingProxy.isProxy(OpenAiInternals.TRANSPORT.read(options, beanName));
    }

    /**
     * Returns the synchronous client re-optioned on a retrying transport, its own retries off.
     *
     * @param client the client
     * @param options its options
     * @param beanName the bean being rebuilt, for the exception
     * @param retrier the decisions about every exchange
     * @param waits the timer of the waits of asynchronous exchanges
     * @param calls the registry of stream call contexts
     * @return the retried client
     */
    static OpenAIClient retried(OpenAIClient client, ClientOptions options, String beanName, Retrier retrier,
            WaitScheduler waits, StreamCalls calls) {
        HttpClient original = OpenAiInternals.TRANSPORT.read(options, beanName);
        HttpClient transport = oneRequestPerCall(original, beanName);
        return client.withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(OpenAiHttp.HTTP, transport, retrier, waits,
                    options.streamHandlerExecutor(), calls, transport != original))
            .maxRetries(0));
    }

    /**
     * Returns the asynchronous client re-optioned on a retrying transport, its own retries off, and with
     * each stream read on the thread that read its first event ({@link StreamHandOff}).
     *
     * @param client the client
     * @param options its options
     * @param beanName the bean being rebuilt, for the exception
     * @param retrier the decisions about every exchange
     * @param waits the timer of the waits
     * @param calls the registry of stream call contexts
     * @return the retried client
     */
    static OpenAIClientAsync retried(OpenAIClientAsync client, ClientOptions options, String beanName,
            Retrier retrier, WaitScheduler waits, StreamCalls calls) {
        HttpClient original = OpenAiInternals.TRANSPORT.read(options, beanName);
        HttpClient transport = oneRequestPerCall(original, beanName);
        Executor streamHandlers = options.streamHandlerExecutor();
        return client.withOptions((builder) -> builder
            .httpClient(RetryingHttpClient.of(OpenAiHttp.HTTP, transport, retrier, waits, streamHandlers, calls,
                    transport != original))
            .streamHandlerExecutor(StreamHandOff.streamHandlerExecutor(streamHandlers))
            .maxRetries(0));
    }

    /**
     * Returns a transport that sends each request once and can abandon it: Spring AI's OkHttp transport
     * made again on its OkHttp client with {@code retryOnConnectionFailure} off, which Spring AI 2.0.1
     * turns on, and which sends a request again when the connection it took from the pool fails (a
     * second, unseen attempt), and with {@link AbandonableCalls}. Everything else of that client (its
     * connection pool, dispatcher, interceptors, timeouts, proxy) is shared as Spring AI built it. A
     * transport of the application's own is used as it is, the same object.
     *
     * @param transport the SDK client's transport: Spring AI's, in the wrapper the SDK closes it with
     * @param beanName the model's bean name, for the exception
     * @return the transport to send each attempt with
     * @throws dev.inference.retry.springai.ModelNotRetriableException if Spring AI's transport does not
     *     have the expected shape
     */
    static HttpClient oneRequestPerCall(HttpClient transport, String beanName) {
        HttpClient built = (transport instanceof PhantomReachableClosingHttpClient closing)
                ? OpenAiInternals.CLOSING_TARGET.read(closing, beanName) : transport;
        if (!(built instanceof SpringAiOpenAiHttpClient springAi)) {
            return transport;
        }
        OkHttpClient once = springAi.getOkHttpClient().newBuilder().retryOnConnectionFailure(false)
            .addInterceptor(AbandonableCalls.INSTANCE)
            .build();
        boolean ownsDispatcher = OpenAiInternals.OWNS_DISPATCHER.read(springAi, beanName);
        HttpClient copy = OpenAiInternals.SPRING_AI_TRANSPORT.newInstance(beanName, once, ownsDispatcher);
        // Once its wrapper is unreachable, the SDK closes Spring AI's transport, and the dispatcher the copy shares.
        return ForwardingProxy.keepingReachable(HttpClient.class, copy, transport);
    }

    /**
     * Says how Spring AI resolves a model's own {@code max-retries}, for the exception that names it.
     *
     * @param property the model's property, such as {@code spring.ai.openai.embedding.max-retries}
     * @return the note, ending with a space
     */
    static String retriesNote(String property) {
        return "(Spring AI reads " + property + "=3, its default, as unset, and then takes "
                + "spring.ai.openai.max-retries.) ";
    }
}
