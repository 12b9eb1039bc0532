package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * When the auto-configuration retries which chat model beans, and what it keeps of them. Only the test
 * of the observations calls the model; the others never reach the provider's address.
 */
class SpringAiRetryAutoConfigurationTests {

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3,
            Duration.ofMillis(50))).name("openAiChatModel").build();

    private final List<String> asked = new CopyOnWriteArrayList<>();

    private static final String UNUSED_PROVIDER = "http://127.0.0.1:9/v1";

    private static final String OPENAI_POST_PROCESSOR = "inferenceRetryOpenAiChatModelPostProcessor";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OpenAiChatAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                SpringAiRetryAutoConfiguration.class))
        .withPropertyValues("spring.ai.openai.base-url=" + UNUSED_PROVIDER, "spring.ai.openai.api-key=test",
                "spring.ai.openai.chat.max-retries=0");

    @Nested
    class BacksOff {

        @Test
        void withoutSpringAi() {
            new ApplicationContextRunner().withBean(ChatModelRetriers.class, () -> retriers(true))
                .withClassLoader(new FilteredClassLoader(ChatModel.class))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .run((context) -> assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RetryTimer.class)
                    .doesNotHaveBean(OPENAI_POST_PROCESSOR));
        }

        @Test
        void withoutTheOpenAiModel() {
            new ApplicationContextRunner().withBean(ChatModelRetriers.class, () -> retriers(true))
                .withClassLoader(new FilteredClassLoader(OpenAiChatModel.class))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .run((context) -> assertThat(context).hasNotFailed()
                    .doesNotHaveBean(OPENAI_POST_PROCESSOR));
        }

        @Test
        void withoutChatModelRetriers() {
            runner.run((context) -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RetryTimer.class)
                    .doesNotHaveBean(OPENAI_POST_PROCESSOR);
                assertRetried(context.getBean(OpenAiChatModel.class), false);
            });
        }

        @Test
        void whenSpringAiRetriesAreSwitchedOff() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("inference.retry.spring-ai.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(OPENAI_POST_PROCESSOR);
                    assertRetried(context.getBean(OpenAiChatModel.class), false);
                    assertThat(asked).isEmpty();
                });
        }
    }

    @Nested
    class Retries {

        @Test
        void aModelWhoseBeanHasARetrierAndKeepsItsClass() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true)).run((context) -> {
                assertThat(context).hasNotFailed().hasSingleBean(OpenAiChatModel.class);
                assertThat(context.getBean("openAiChatModel")).isExactlyInstanceOf(OpenAiChatModel.class);
                assertRetried(context.getBean(OpenAiChatModel.class), true);
                assertThat(asked).containsExactly("openAiChatModel");
            });
        }

        @Test
        void noModelWhoseBeanHasNoRetrier() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(false)).run((context) -> {
                assertThat(context).hasNotFailed();
                assertRetried(context.getBean(OpenAiChatModel.class), false);
                assertThat(asked).containsExactly("openAiChatModel");
            });
        }

        @Test
        void aModelTheApplicationBuiltItself() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean("openAiChatModel", OpenAiChatModel.class, () -> OpenAiChatModel.builder()
                    .options(OpenAiChatOptions.builder().baseUrl(UNUSED_PROVIDER).apiKey("test").maxRetries(0).build())
                    .build())
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertRetried(context.getBean(OpenAiChatModel.class), true);
                });
        }
    }

    @Nested
    class Keeps {

        @Test
        void theModelsOptions() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("spring.ai.openai.chat.options.model=gpt-test", "spring.ai.openai.chat.options.temperature=0.3")
                .run((context) -> {
                    OpenAiChatOptions options = context.getBean(OpenAiChatModel.class).getOptions();

                    assertThat(options.getModel()).isEqualTo("gpt-test");
                    assertThat(options.getTemperature()).isEqualTo(0.3);
                });
        }

        @Test
        void theModelsObservationRegistryAndConvention() {
            List<String> observed = new CopyOnWriteArrayList<>();
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<>() {

                @Override
                public void onStart(Observation.Context context) {
                    observed.add(context.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());
            provider.start();
            try {
                provider.stubFor(post(urlEqualTo(OpenAiWire.PATH)).willReturn(aResponse()
                    .withHeader("Content-Type", "application/json")
                    .withBody(OpenAiWire.completion("Hello"))));
                runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                    .withBean(ObservationRegistry.class, () -> registry)
                    .withBean(ChatModelObservationConvention.class, NamedConvention::new)
                    .withPropertyValues("spring.ai.openai.base-url=http://127.0.0.1:" + provider.port() + "/v1")
                    .run((context) -> {
                        OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
                        assertRetried(model, true);

                        assertThat(model.call("Hi")).isEqualTo("Hello");
                        assertThat(observed).contains("custom.chat");
                    });
            }
            finally {
                provider.stop();
            }
        }
    }

    @Nested
    class FailsStartup {

        @Test
        void whenTheChatModelsClientAsksForRetriesOfItsOwn() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("spring.ai.openai.chat.max-retries=2")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ChatModelClientRetriesException.class, (ex) -> {
                        assertThat(ex.beanName()).isEqualTo("openAiChatModel");
                        assertThat(ex.maxRetries()).isEqualTo(2);
                        assertThat(ex.property()).isEqualTo("spring.ai.openai.chat.max-retries");
                        assertThat(ex.action()).startsWith("Set spring.ai.openai.chat.max-retries=0, or remove it")
                            .endsWith("set inference.retry.clients.openAiChatModel.enabled=false.");
                    }));
        }

        @Test
        void whenAModelTheApplicationBuiltKeepsItsClientsDefaultRetries() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean("openAiChatModel", OpenAiChatModel.class, () -> OpenAiChatModel.builder()
                    .options(OpenAiChatOptions.builder().baseUrl(UNUSED_PROVIDER).apiKey("test").build())
                    .build())
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ChatModelClientRetriesException.class,
                            (ex) -> assertThat(ex.maxRetries()).isEqualTo(3)));
        }

        @Test
        void forAModelWhoseClientsAreNotTheSdksOwn() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean("openAiChatModel", OpenAiChatModel.class, () -> OpenAiChatModel.builder()
                    .openAiClient(unsupported(OpenAIClient.class))
                    .openAiClientAsync(unsupported(OpenAIClientAsync.class))
                    .build())
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ChatModelNotRetriableException.class)
                    .hasMessageStartingWith("Cannot retry the chat model bean 'openAiChatModel': its OpenAI clients (")
                    .hasMessageEndingWith("To start without retrying it, set "
                            + "inference.retry.clients.openAiChatModel.enabled=false (or "
                            + "inference.retry.spring-ai.enabled=false for every Spring AI model)"));
        }
    }

    private ChatModelRetriers retriers(boolean retried) {
        return (name) -> {
            this.asked.add(name);
            return retried ? Optional.of(RETRIER) : Optional.empty();
        };
    }

    private static void assertRetried(OpenAiChatModel model, boolean retried) {
        assertThat(OpenAiChatModelRebuild.isRetried(model, "openAiChatModel")).isEqualTo(retried);
    }

    /** A client an application wrote itself: an implementation of the SDK's interface that does nothing. */
    private static <T> T unsupported(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            throw new UnsupportedOperationException(method.getName());
        }));
    }

    /** A convention whose name shows that the model kept it. */
    static final class NamedConvention implements ChatModelObservationConvention {

        @Override
        public String getName() {
            return "custom.chat";
        }

    }
}
