package dev.inference.retry.springai.ollama;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ChatModelRebuildContract;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.OllamaWire;
import dev.inference.retry.springai.SpringAiStarters;
import io.micrometer.observation.ObservationRegistry;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.ollama.management.ModelManagementOptions;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.ReactorClientHttpRequestFactory;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * When the auto-configuration retries Ollama chat model beans, and what it keeps of them
 * ({@link ChatModelRebuildContract}) and of the beans they share with the models it leaves alone. Only
 * the tests that need a provider call the model; the others never reach the provider's address.
 */
class OllamaRetryAutoConfigurationTests extends ChatModelRebuildContract<OllamaChatModel> {

    private static final String BEAN = "ollamaChatModel";

    @Override
    protected String beanName() {
        return BEAN;
    }

    @Override
    protected Class<OllamaChatModel> modelClass() {
        return OllamaChatModel.class;
    }

    /** A subclass of the model's class, which carries a stream's cancellation to its exchange. */
    @Override
    protected Class<RetriedOllamaChatModel> rebuiltClass() {
        return RetriedOllamaChatModel.class;
    }

    @Override
    protected String postProcessor() {
        return "inferenceRetryOllamaChatModelPostProcessor";
    }

    /** With Spring AI's shared retries, and the embedding model, which is left alone. */
    @Override
    protected ApplicationContextRunner runnerAgainst(String root) {
        return SpringAiStarters.ollama(root);
    }

    @Override
    protected String optionProperty(String option) {
        return "spring.ai.ollama.chat." + option;
    }

    /** A model on a client of its own, not the one Spring AI's auto-configuration shares. */
    @Override
    protected OllamaChatModel builtByTheApplication() {
        return OllamaChatModel.builder()
            .ollamaApi(reactorApi())
            .options(OllamaChatOptions.builder().model(OllamaWire.MODEL).build())
            .build();
    }

    @Override
    protected boolean isRetried(OllamaChatModel model) {
        return OllamaChatModelRebuild.isRetried(model);
    }

    @Override
    protected String chatPath() {
        return OllamaWire.CHAT;
    }

    @Override
    protected ResponseDefinitionBuilder completion(String content) {
        return OllamaWire.chat(content);
    }

    /** The rebuilt model reaches Ollama through Spring's reactive client too: without it, nothing is rebuilt. */
    @Nested
    class BacksOffWithoutItsClients {

        @Test
        void withoutReactor() {
            assertBacksOffWithout(Flux.class);
        }

        @Test
        void withoutWebClient() {
            assertBacksOffWithout(WebClient.class);
        }
    }

    @Nested
    class KeepsItsOwn {

        @Test
        void theSharedClientAndRetryTemplateForTheModelsItLeavesAlone() {
            runner().withBean(ModelRetriers.class, () -> onlyTheChatModel()).run((context) -> {
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
        void theSharedClientWhenTheEmbeddingModelIsRetriedToo() {
            runner().withBean(ModelRetriers.class, () -> retriers(true)).run((context) -> {
                OllamaApi shared = context.getBean(OllamaApi.class);
                OllamaEmbeddingModel embeddings = context.getBean(OllamaEmbeddingModel.class);

                assertThat(ReflectionTestUtils.getField(embeddings, "ollamaApi")).isNotSameAs(shared);
                assertThat(OllamaEmbeddingModelRebuild.isRetried(embeddings, "ollamaEmbeddingModel")).isTrue();
                assertThat(RetriedOllamaApi.isRetried(shared, "ollamaApi")).isFalse();
            });
        }

        @Test
        void theBaseUrlOfItsClientWithItsPath() {
            withProvider("/ollama", (provider) -> runnerAgainst("http://127.0.0.1:" + provider.port() + "/ollama")
                .withBean(ModelRetriers.class, () -> retriers(true))
                .run((context) -> {
                    assertThat(context.getBean(OllamaChatModel.class).call("Hi")).isEqualTo("Hello");
                    assertThat(provider.countRequestsMatching(postRequestedFor(urlEqualTo("/ollama" + OllamaWire.CHAT))
                        .build()).getCount()).isEqualTo(1);
                }));
        }
    }

    @Nested
    class FailsStartup {

        @Test
        void forASubclassOfTheModel() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withBean(BEAN, OllamaChatModel.class, () -> new OllamaChatModel(
                        reactorApi(),
                        OllamaChatOptions.builder().model(OllamaWire.MODEL).build(), ToolCallingManager.builder().build(),
                        ObservationRegistry.NOOP, ModelManagementOptions.defaults()) {
                })
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ModelNotRetriableException.class)
                    .hasMessageStartingWith("Cannot retry the chat model bean 'ollamaChatModel': its class ")
                    .hasMessageContaining(" extends OllamaChatModel, and rebuilding it as an OllamaChatModel would lose "
                            + "what it adds. To start without retrying it, set "
                            + "inference.retry.clients.ollamaChatModel.enabled=false"));
        }

        @Test
        void forAClientOnApacheHttpClient5WhichRetriesBeneathTheStarter() {
            SpringAiStarters.ollama(UNUSED_PROVIDER, HttpComponentsClientHttpRequestFactory::new)
                .withBean(ModelRetriers.class, () -> onlyTheChatModel())
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ModelNotRetriableException.class)
                    .hasMessageStartingWith("Cannot retry the model bean 'ollamaChatModel': its OllamaApi sends "
                            + "through Apache HttpClient 5 (org.springframework.http.client."
                            + "HttpComponentsClientHttpRequestFactory), which retries a 429 or 503 itself")
                    .hasMessageContaining("Spring AI 2.0.0 brings it with the Anthropic SDK (anthropic-java 2.40.1)")
                    .hasMessageContaining("spring.http.clients.imperative.factory=reactor, jdk or simple"));
        }
    }

    /** An API on Reactor Netty's HTTP client, which retries nothing by itself. */
    private static OllamaApi reactorApi() {
        return OllamaApi.builder()
            .baseUrl(UNUSED_PROVIDER)
            .restClientBuilder(RestClient.builder().requestFactory(new ReactorClientHttpRequestFactory()))
            .build();
    }

    /** Gives the chat model a retrier, and nothing else one. */
    private ModelRetriers onlyTheChatModel() {
        ModelRetriers all = retriers(true);
        return (name) -> name.equals(beanName()) ? all.retrierFor(name) : Optional.empty();
    }
}
