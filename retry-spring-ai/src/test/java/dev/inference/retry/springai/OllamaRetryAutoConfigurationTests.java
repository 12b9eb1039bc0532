package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.model.ollama.autoconfigure.OllamaApiAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaEmbeddingAutoConfiguration;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.ollama.management.ModelManagementOptions;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * When the auto-configuration retries Ollama chat model beans, and what it keeps of them and of the
 * beans they share. Only the tests that need a provider call the model; the others never reach the
 * provider's address.
 */
class OllamaRetryAutoConfigurationTests {

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3,
            Duration.ofMillis(50))).name("ollamaChatModel").build();

    private static final String UNUSED_PROVIDER = "http://127.0.0.1:9";

    private static final String POST_PROCESSOR = "inferenceRetryOllamaChatModelPostProcessor";

    private final List<String> asked = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OllamaApiAutoConfiguration.class, OllamaChatAutoConfiguration.class,
                OllamaEmbeddingAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                org.springframework.ai.retry.autoconfigure.SpringAiRetryAutoConfiguration.class,
                SpringAiRetryAutoConfiguration.class))
        .withPropertyValues("spring.ai.ollama.base-url=" + UNUSED_PROVIDER, "spring.ai.ollama.chat.model="
                + OllamaWire.MODEL, "spring.ai.ollama.embedding.model=" + OllamaWire.MODEL);

    @Nested
    class BacksOff {

        @Test
        void withoutTheOllamaModel() {
            assertBacksOffWithout(OllamaChatModel.class);
        }

        @Test
        void withoutReactor() {
            assertBacksOffWithout(Flux.class);
        }

        @Test
        void withoutWebClient() {
            assertBacksOffWithout(WebClient.class);
        }

        @Test
        void withoutChatModelRetriers() {
            runner.run((context) -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(POST_PROCESSOR);
                assertRetried(context.getBean(OllamaChatModel.class), false);
            });
        }

        @Test
        void whenSpringAiRetriesAreSwitchedOff() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("inference.retry.spring-ai.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(POST_PROCESSOR);
                    assertRetried(context.getBean(OllamaChatModel.class), false);
                    assertThat(asked).isEmpty();
                });
        }

        private void assertBacksOffWithout(Class<?> missing) {
            new ApplicationContextRunner().withBean(ChatModelRetriers.class, () -> retriers(true))
                .withClassLoader(new FilteredClassLoader(missing))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .run((context) -> assertThat(context).hasNotFailed()
                    .doesNotHaveBean(POST_PROCESSOR));
        }
    }

    @Nested
    class Retries {

        @Test
        void aModelWhoseBeanHasARetrierAndStaysAnOllamaChatModel() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true)).run((context) -> {
                assertThat(context).hasNotFailed().hasSingleBean(OllamaChatModel.class).hasBean(POST_PROCESSOR);
                assertThat(context.getBean("ollamaChatModel")).isInstanceOf(OllamaChatModel.class);
                assertRetried(context.getBean(OllamaChatModel.class), true);
                assertThat(asked).containsExactly("ollamaChatModel");
            });
        }

        @Test
        void noModelWhoseBeanHasNoRetrier() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(false)).run((context) -> {
                assertThat(context).hasNotFailed();
                assertRetried(context.getBean(OllamaChatModel.class), false);
                assertThat(asked).containsExactly("ollamaChatModel");
            });
        }

        @Test
        void aModelTheApplicationBuiltItselfOnItsOwnClient() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean("ollamaChatModel", OllamaChatModel.class, () -> OllamaChatModel.builder()
                    .ollamaApi(OllamaApi.builder().baseUrl(UNUSED_PROVIDER).build())
                    .options(OllamaChatOptions.builder().model(OllamaWire.MODEL).build())
                    .build())
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertRetried(context.getBean(OllamaChatModel.class), true);
                });
        }
    }

    @Nested
    class Keeps {

        @Test
        void theModelsOptions() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("spring.ai.ollama.chat.model=llama-test", "spring.ai.ollama.chat.temperature=0.3")
                .run((context) -> {
                    OllamaChatOptions options = context.getBean(OllamaChatModel.class).getOptions();

                    assertThat(options.getModel()).isEqualTo("llama-test");
                    assertThat(options.getTemperature()).isEqualTo(0.3);
                });
        }

        @Test
        void theModelsToolCallingManager() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true)).run((context) -> {
                OllamaChatModel model = context.getBean(OllamaChatModel.class);

                assertThat(ReflectionTestUtils.getField(model, "toolCallingManager"))
                    .isSameAs(context.getBean(ToolCallingManager.class));
            });
        }

        @Test
        void theSharedClientAndRetryTemplateForTheModelsItLeavesAlone() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true)).run((context) -> {
                OllamaApi shared = context.getBean(OllamaApi.class);
                RetryTemplate sharedRetries = context.getBean(RetryTemplate.class);

                assertThat(ReflectionTestUtils.getField(context.getBean(OllamaEmbeddingModel.class), "ollamaApi"))
                    .isSameAs(shared);
                OllamaChatModel model = context.getBean(OllamaChatModel.class);
                assertThat(ReflectionTestUtils.getField(model, "chatApi")).isNotSameAs(shared);
                assertThat(ReflectionTestUtils.getField(model, "retryTemplate")).isNotSameAs(sharedRetries);
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
            withProvider("", (provider) -> runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(ChatModelObservationConvention.class, SpringAiRetryAutoConfigurationTests.NamedConvention::new)
                .withPropertyValues("spring.ai.ollama.base-url=http://127.0.0.1:" + provider.port())
                .run((context) -> {
                    OllamaChatModel model = context.getBean(OllamaChatModel.class);
                    assertRetried(model, true);

                    assertThat(model.call("Hi")).isEqualTo("Hello");
                    assertThat(observed).contains("custom.chat");
                }));
        }

        @Test
        void theBaseUrlOfItsClientWithItsPath() {
            withProvider("/ollama", (provider) -> runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withPropertyValues("spring.ai.ollama.base-url=http://127.0.0.1:" + provider.port() + "/ollama")
                .run((context) -> {
                    assertThat(context.getBean(OllamaChatModel.class).call("Hi")).isEqualTo("Hello");
                    assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo("/ollama" + OllamaWire.CHAT))
                        .build()).getCount()).isEqualTo(1);
                }));
        }

        /** Runs a test against a provider that answers every chat under the path prefix with "Hello". */
        private void withProvider(String prefix, Consumer<WireMockServer> test) {
            WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());
            provider.start();
            try {
                provider.stubFor(post(urlEqualTo(prefix + OllamaWire.CHAT)).willReturn(OllamaWire.chat("Hello")));
                test.accept(provider);
            }
            finally {
                provider.stop();
            }
        }
    }

    @Nested
    class FailsStartup {

        @Test
        void forASubclassOfTheModel() {
            runner.withBean(ChatModelRetriers.class, () -> retriers(true))
                .withBean("ollamaChatModel", OllamaChatModel.class, () -> new OllamaChatModel(
                        OllamaApi.builder().baseUrl(UNUSED_PROVIDER).build(),
                        OllamaChatOptions.builder().model(OllamaWire.MODEL).build(), ToolCallingManager.builder().build(),
                        ObservationRegistry.NOOP, ModelManagementOptions.defaults()) {
                })
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ChatModelNotRetriableException.class)
                    .hasMessageStartingWith("Cannot retry the chat model bean 'ollamaChatModel': its class ")
                    .hasMessageContaining(" extends OllamaChatModel, and rebuilding it as an OllamaChatModel would lose "
                            + "what it adds. To start without retrying it, set "
                            + "inference.retry.clients.ollamaChatModel.enabled=false"));
        }
    }

    private ChatModelRetriers retriers(boolean retried) {
        return (name) -> {
            this.asked.add(name);
            return retried ? Optional.of(RETRIER) : Optional.empty();
        };
    }

    private static void assertRetried(OllamaChatModel model, boolean retried) {
        assertThat(OllamaChatModelRebuild.isRetried(model)).isEqualTo(retried);
    }
}
