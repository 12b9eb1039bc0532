package dev.inference.retry.springai.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.PhantomReachableClosingHttpClient;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ReplacedModels;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.internal.PrivateField;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * When the OpenAI model is rebuilt on retried clients, what its exchanges are sent with. None of these
 * tests reaches the provider's address.
 */
class OpenAiChatModelRebuildTests {

    private static final String BEAN = "openAiChatModel";

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3,
            Duration.ofMillis(50))).name(BEAN).build();

    private final RetryTimer timer = new RetryTimer();

    @AfterEach
    void closeTimer() {
        this.timer.close();
    }

    @Nested
    class Transport {

        @Test
        void keepsTheDispatcherItSharesWithTheReplacedModelRunningOnceThatModelIsCollected() {
            Rebuilt rebuilt = rebuildAndForgetTheOriginal();

            // The SDK closes Spring AI's transport, with its dispatcher, once the wrapper it made of it is unreachable.
            ReplacedModels.assertSharedExecutorsOutlive(rebuilt.original(), rebuilt.dispatchers());
            Reference.reachabilityFence(rebuilt.model());
        }

        @Test
        void isTheApplicationsOwnAsItIs() {
            HttpClient own = (HttpClient) Proxy.newProxyInstance(HttpClient.class.getClassLoader(),
                    new Class<?>[] { HttpClient.class }, (proxy, method, args) -> {
                        throw new UnsupportedOperationException(method.getName());
                    });

            assertThat(OpenAiClients.oneRequestPerCall(own, BEAN)).isSameAs(own);
        }
    }

    /** Rebuilds a model that nothing else holds: once this returns, only the rebuilt model keeps what it shares. */
    private Rebuilt rebuildAndForgetTheOriginal() {
        OpenAiChatModel model = OpenAiChatModel.builder()
            .options(OpenAiChatOptions.builder().baseUrl("http://127.0.0.1:9/v1").apiKey("test").maxRetries(0).build())
            .build();
        List<ExecutorService> dispatchers = List.of(dispatcher(read(model, "openAiClient", OpenAiChatModel.class),
                OpenAIClientImpl.class), dispatcher(read(model, "openAiClientAsync", OpenAiChatModel.class),
                        OpenAIClientAsyncImpl.class));
        return new Rebuilt(OpenAiChatModelRebuild.rebuild(model, BEAN, RETRIER, this.timer), dispatchers,
                new WeakReference<>(model));
    }

    /** The executor of the OkHttp dispatcher of Spring AI's transport beneath an SDK client. */
    private static ExecutorService dispatcher(Object client, Class<?> clientClass) {
        ClientOptions options = read(client, "clientOptions", clientClass);
        PhantomReachableClosingHttpClient closing = read(options, "originalHttpClient", ClientOptions.class);
        SpringAiOpenAiHttpClient transport = read(closing, "httpClient", PhantomReachableClosingHttpClient.class);
        return transport.getOkHttpClient().dispatcher().executorService();
    }

    private static <T> T read(Object target, String field, Class<?> declaringClass) {
        return new PrivateField(declaringClass, field, "-").read(target, BEAN);
    }

    private record Rebuilt(OpenAiChatModel model, List<ExecutorService> dispatchers,
            WeakReference<OpenAiChatModel> original) {
    }
}
