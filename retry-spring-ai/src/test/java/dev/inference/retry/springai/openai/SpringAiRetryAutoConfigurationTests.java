package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ChatModelRebuildContract;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.SpringAiStarters;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * When the auto-configuration retries the OpenAI chat model bean, and what it keeps of it
 * ({@link ChatModelRebuildContract}), and when it fails startup rather than retry it, which no test
 * written here needs a provider for.
 */
class SpringAiRetryAutoConfigurationTests extends ChatModelRebuildContract<OpenAiChatModel> {

    private static final String BEAN = "openAiChatModel";

    @Override
    protected String beanName() {
        return BEAN;
    }

    @Override
    protected Class<OpenAiChatModel> modelClass() {
        return OpenAiChatModel.class;
    }

    /** The same final class, rebuilt on retried clients. */
    @Override
    protected Class<OpenAiChatModel> rebuiltClass() {
        return OpenAiChatModel.class;
    }

    @Override
    protected String postProcessor() {
        return "inferenceRetryOpenAiChatModelPostProcessor";
    }

    @Override
    protected ApplicationContextRunner runnerAgainst(String root) {
        return SpringAiStarters.openAi(root);
    }

    @Override
    protected String optionProperty(String option) {
        return "spring.ai.openai.chat.options." + option;
    }

    @Override
    protected OpenAiChatModel builtByTheApplication() {
        return OpenAiChatModel.builder()
            .options(OpenAiChatOptions.builder().baseUrl(UNUSED_PROVIDER + "/v1").apiKey("test").maxRetries(0).build())
            .build();
    }

    @Override
    protected boolean isRetried(OpenAiChatModel model) {
        return OpenAiChatModelRebuild.isRetried(model, BEAN);
    }

    @Override
    protected String chatPath() {
        return OpenAiWire.PATH;
    }

    @Override
    protected ResponseDefinitionBuilder completion(String content) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(OpenAiWire.completion(content));
    }

    @Nested
    class FailsStartup {

        @Test
        void whenTheChatModelsClientAsksForRetriesOfItsOwn() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withPropertyValues("spring.ai.openai.chat.max-retries=2")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ModelClientRetriesException.class, (ex) -> {
                        assertThat(ex.beanName()).isEqualTo(BEAN);
                        assertThat(ex.maxRetries()).isEqualTo(2);
                        assertThat(ex.property()).isEqualTo("spring.ai.openai.chat.max-retries");
                        assertThat(ex.action()).startsWith("Set spring.ai.openai.chat.max-retries=0, or remove it")
                            .endsWith("set inference.retry.clients.openAiChatModel.enabled=false.");
                    }));
        }

        @Test
        void whenAModelTheApplicationBuiltKeepsItsClientsDefaultRetries() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withBean(BEAN, OpenAiChatModel.class, () -> OpenAiChatModel.builder()
                    .options(OpenAiChatOptions.builder().baseUrl(UNUSED_PROVIDER + "/v1").apiKey("test").build())
                    .build())
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(ModelClientRetriesException.class,
                            (ex) -> assertThat(ex.maxRetries()).isEqualTo(3)));
        }

        @Test
        void forAModelWhoseClientsAreNotTheSdksOwn() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withBean(BEAN, OpenAiChatModel.class, () -> OpenAiChatModel.builder()
                    .openAiClient(unsupported(OpenAIClient.class))
                    .openAiClientAsync(unsupported(OpenAIClientAsync.class))
                    .build())
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ModelNotRetriableException.class)
                    .hasMessageStartingWith("Cannot retry the chat model bean 'openAiChatModel': its OpenAI clients (")
                    .hasMessageEndingWith("To start without retrying it, set "
                            + "inference.retry.clients.openAiChatModel.enabled=false (or "
                            + "inference.retry.spring-ai.enabled=false for every Spring AI model)"));
        }
    }

    /** A client an application wrote itself: an implementation of the SDK's interface that does nothing. */
    private static <T> T unsupported(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            throw new UnsupportedOperationException(method.getName());
        }));
    }
}
