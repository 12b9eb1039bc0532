package dev.inference.retry.springai.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.AnthropicClientAsyncImpl;
import com.anthropic.client.AnthropicClientImpl;
import com.anthropic.core.ClientOptions;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.PhantomReachableClosingHttpClient;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.ReplacedModels;
import dev.inference.retry.springai.SpringAiStarters;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.internal.PrivateField;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.anthropic.http.okhttp.SpringAiAnthropicHttpClient;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * When the Anthropic model is rebuilt on retried clients, what it keeps, what its exchanges are sent
 * with, and what its clients' own retries are. None of these tests reaches the provider's address.
 */
class AnthropicChatModelRebuildTests {

    private static final String BEAN = "anthropicChatModel";

    private static final String UNUSED_PROVIDER = "http://127.0.0.1:9";

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3,
            Duration.ofMillis(50))).name(BEAN).build();

    private final RetryTimer timer = new RetryTimer();

    private final ApplicationContextRunner runner = SpringAiStarters.anthropic(UNUSED_PROVIDER);

    @AfterEach
    void closeTimer() {
        this.timer.close();
    }

    @Nested
    class AutoConfiguration {

        @Test
        void rebuildsTheBeanThatHasARetrierKeepingItsClassAndOptions() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withPropertyValues("spring.ai.anthropic.chat.options.model=claude-test",
                        "spring.ai.anthropic.chat.options.temperature=0.3")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    AnthropicChatModel model = context.getBean(AnthropicChatModel.class);

                    assertThat(context.getBean(BEAN)).isExactlyInstanceOf(AnthropicChatModel.class);
                    assertThat(AnthropicChatModelRebuild.isRetried(model, BEAN)).isTrue();
                    assertThat(model.getOptions().getModel()).isEqualTo("claude-test");
                    assertThat(model.getOptions().getTemperature()).isEqualTo(0.3);
                });
        }

        @Test
        void leavesTheBeanThatHasNoRetrierAlone() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.empty()).run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(AnthropicChatModelRebuild.isRetried(context.getBean(AnthropicChatModel.class), BEAN)).isFalse();
            });
        }

        @Test
        void backsOffWithoutTheAnthropicModel() {
            new ApplicationContextRunner().withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withClassLoader(new FilteredClassLoader(AnthropicChatModel.class))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .run((context) -> assertThat(context).hasNotFailed()
                    .hasBean("inferenceRetryOpenAiChatModelPostProcessor")
                    .doesNotHaveBean("inferenceRetryAnthropicChatModelPostProcessor"));
        }
    }

    @Nested
    class Keeps {

        @Test
        void theObservationConvention() {
            AnthropicChatModel model = model(0);
            ChatModelObservationConvention convention = new ChatModelObservationConvention() {
            };
            model.setObservationConvention(convention);

            AnthropicChatModel rebuilt = AnthropicChatModelRebuild.rebuild(model, BEAN, RETRIER, timer);

            ChatModelObservationConvention kept = new PrivateField(AnthropicChatModel.class, "observationConvention", "-")
                .read(rebuilt, BEAN);
            assertThat(kept).isSameAs(convention);
        }
    }

    @Nested
    class ClientRetries {

        @Test
        void areTheSdksDefaultForAModelBuiltWithoutAny() {
            AnthropicChatModel model = AnthropicChatModel.builder()
                .options(AnthropicChatOptions.builder().baseUrl(UNUSED_PROVIDER).apiKey("test").build())
                .build();

            assertThat(AnthropicChatModelRebuild.clientRetries(model, BEAN)).isEqualTo(2);
        }

        @Test
        void areWhatThePropertySaysForTheAutoConfiguredModel() {
            runner.withPropertyValues("spring.ai.anthropic.max-retries=5")
                .run((context) -> assertThat(AnthropicChatModelRebuild
                    .clientRetries(context.getBean(AnthropicChatModel.class), BEAN)).isEqualTo(5));
        }

        @Test
        void areNoneOnceTheModelIsRebuilt() {
            AnthropicChatModel rebuilt = AnthropicChatModelRebuild.rebuild(model(0), BEAN, RETRIER, timer);

            ClientOptions options = new PrivateField(AnthropicClientImpl.class, "clientOptions", "-")
                .read(rebuilt.getAnthropicClient(), BEAN);
            assertThat(options.maxRetries()).isZero();
            assertThat(AnthropicChatModelRebuild.clientRetries(rebuilt, BEAN)).isZero();
        }

        @Test
        void keepAModelThatAsksForThemFromBeingRebuilt() {
            assertThatThrownBy(() -> AnthropicChatModelRebuild.rebuild(model(2), BEAN, RETRIER, timer))
                .isInstanceOfSatisfying(ModelClientRetriesException.class, (ex) -> {
                    assertThat(ex.beanName()).isEqualTo(BEAN);
                    assertThat(ex.maxRetries()).isEqualTo(2);
                    assertThat(ex.property()).isEqualTo("spring.ai.anthropic.max-retries");
                });
        }

        @Test
        void failStartupWhenThePropertyOfTheRetriedModelAsksForThem() {
            runner.withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withPropertyValues("spring.ai.anthropic.max-retries=2")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ModelClientRetriesException.class, (ex) -> assertThat(ex.action())
                        .startsWith("Set spring.ai.anthropic.max-retries=0, or remove it")
                        .endsWith("set inference.retry.clients.anthropicChatModel.enabled=false.")));
        }
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
            HttpClient own = unsupported(HttpClient.class);

            assertThat(AnthropicChatModelRebuild.oneRequestPerCall(own, BEAN)).isSameAs(own);
        }
    }

    @Nested
    class Fails {

        @Test
        void forAModelWhoseClientsAreNotTheSdksOwn() {
            AnthropicChatModel model = AnthropicChatModel.builder()
                .anthropicClient(unsupported(AnthropicClient.class))
                .anthropicClientAsync(unsupported(AnthropicClientAsync.class))
                .build();

            assertThatThrownBy(() -> AnthropicChatModelRebuild.rebuild(model, BEAN, RETRIER, timer))
                .isInstanceOf(ModelNotRetriableException.class)
                .hasMessageStartingWith("Cannot retry the chat model bean 'anthropicChatModel': its Anthropic clients (")
                .hasMessageContaining("are not the SDK's AnthropicClientImpl and AnthropicClientAsyncImpl");
        }
    }

    /** Rebuilds a model that nothing else holds: once this returns, only the rebuilt model keeps what it shares. */
    private Rebuilt rebuildAndForgetTheOriginal() {
        AnthropicChatModel model = model(0);
        List<ExecutorService> dispatchers = List.of(dispatcher(model.getAnthropicClient(), AnthropicClientImpl.class),
                dispatcher(model.getAnthropicClientAsync(), AnthropicClientAsyncImpl.class));
        return new Rebuilt(AnthropicChatModelRebuild.rebuild(model, BEAN, RETRIER, this.timer), dispatchers,
                new WeakReference<>(model));
    }

    /** The executor of the OkHttp dispatcher of Spring AI's transport beneath an SDK client. */
    private static ExecutorService dispatcher(Object client, Class<?> clientClass) {
        ClientOptions options = read(client, "clientOptions", clientClass);
        PhantomReachableClosingHttpClient closing = read(options, "originalHttpClient", ClientOptions.class);
        SpringAiAnthropicHttpClient transport = read(closing, "httpClient", PhantomReachableClosingHttpClient.class);
        OkHttpClient okHttp = read(transport, "okHttpClient", SpringAiAnthropicHttpClient.class);
        return okHttp.dispatcher().executorService();
    }

    private static <T> T read(Object target, String field, Class<?> declaringClass) {
        return new PrivateField(declaringClass, field, "-").read(target, BEAN);
    }

    private static AnthropicChatModel model(int maxRetries) {
        return AnthropicChatModel.builder()
            .options(AnthropicChatOptions.builder().baseUrl(UNUSED_PROVIDER).apiKey("test").maxRetries(maxRetries).build())
            .build();
    }

    private record Rebuilt(AnthropicChatModel model, List<ExecutorService> dispatchers,
            WeakReference<AnthropicChatModel> original) {
    }

    /** A client an application wrote itself: an implementation of the SDK's interface that does nothing. */
    private static <T> T unsupported(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            throw new UnsupportedOperationException(method.getName());
        }));
    }
}
