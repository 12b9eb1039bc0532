package dev.inference.retry.springai;

import com.anthropic.client.AnthropicClientAsyncImpl;
import com.anthropic.client.AnthropicClientImpl;
import com.openai.client.OpenAIClientAsyncImpl;
import com.openai.client.OpenAIClientImpl;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.retry.RetryUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * retries the provider exchanges of Spring AI chat models beneath their beans.
 *
 * <p>Active when Spring AI is on the class path, a {@link ChatModelRetriers} bean exists (the
 * application's {@code inference.retry.*} settings provide one, see
 * {@link SpringAiChatModelRetriersAutoConfiguration}), and {@code inference.retry.spring-ai.enabled}
 * is not {@code false}. Then every {@code OpenAiChatModel} and {@code AnthropicChatModel} bean for
 * which {@link ChatModelRetriers} has a retrier is rebuilt, keeping its class, on clients whose HTTP
 * exchanges that retrier retries and whose own retries are off; an {@code OllamaChatModel} bean is
 * rebuilt the same way, as a subclass of its class (see {@link OllamaChatModelRebuild}). Without a
 * provider's model on the class path, nothing of that provider is loaded. Every other chat model bean with a retrier (see
 * {@link ChatModelsRetriedBeneath}) becomes a proxy of its own class that retries its calls above the
 * HTTP exchange (see {@link ChatModelProxyRetryPostProcessor}).
 */
@AutoConfiguration(after = SpringAiChatModelRetriersAutoConfiguration.class)
@ConditionalOnClass(ChatModel.class)
@ConditionalOnBooleanProperty(name = "inference.retry.spring-ai.enabled", matchIfMissing = true)
@ConditionalOnBean(ChatModelRetriers.class)
public final class SpringAiRetryAutoConfiguration {

    /** The timer of the waits of every retried model, stopped when the application context closes. */
    @Bean
    RetryTimer inferenceRetrySpringAiTimer() {
        return new RetryTimer();
    }

    /** The OpenAI model, on the official OpenAI Java SDK. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ OpenAiChatModel.class, OpenAIClientImpl.class, OpenAIClientAsyncImpl.class })
    @ImportRuntimeHints(OpenAiRetryRuntimeHints.class)
    static class OpenAi {

        @Bean
        static ChatModelRetryPostProcessor<OpenAiChatModel> inferenceRetryOpenAiChatModelPostProcessor(
                ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
            return new ChatModelRetryPostProcessor<>(OpenAiChatModel.class, OpenAiChatModelRebuild::isRetried,
                    OpenAiChatModelRebuild::rebuild, retriers, timer);
        }
    }

    /** The Anthropic model, on the official Anthropic Java SDK. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ AnthropicChatModel.class, AnthropicClientImpl.class, AnthropicClientAsyncImpl.class })
    @ImportRuntimeHints(AnthropicRetryRuntimeHints.class)
    static class Anthropic {

        @Bean
        static ChatModelRetryPostProcessor<AnthropicChatModel> inferenceRetryAnthropicChatModelPostProcessor(
                ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
            return new ChatModelRetryPostProcessor<>(AnthropicChatModel.class, AnthropicChatModelRebuild::isRetried,
                    AnthropicChatModelRebuild::rebuild, retriers, timer);
        }
    }

    /**
     * Every other chat model, such as an application's own: retried above its HTTP exchange, by a proxy of
     * its class.
     */
    @Configuration(proxyBeanMethods = false)
    static class OtherChatModels {

        @Bean
        static ChatModelProxyRetryPostProcessor inferenceRetryChatModelProxyPostProcessor(
                ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<ChatModelFailureTranslator> translators) {
            return new ChatModelProxyRetryPostProcessor(retriers, translators);
        }
    }

    /**
     * The Ollama model, on Spring's RestClient and WebClient, whose own retries come from spring-ai-retry's
     * shared RetryTemplate. Its client turns error statuses into exceptions with the application's response
     * error handler, as Spring AI's auto-configuration gives it to the {@code OllamaApi}, else Spring AI's
     * default.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ OllamaChatModel.class, RestClient.class, WebClient.class, Flux.class })
    @ImportRuntimeHints(OllamaRetryRuntimeHints.class)
    static class Ollama {

        @Bean
        static ChatModelRetryPostProcessor<OllamaChatModel> inferenceRetryOllamaChatModelPostProcessor(
                ObjectProvider<ChatModelRetriers> retriers, ObjectProvider<RetryTimer> timer,
                ObjectProvider<ResponseErrorHandler> errorHandler) {
            return new ChatModelRetryPostProcessor<>(OllamaChatModel.class,
                    (model, beanName) -> OllamaChatModelRebuild.isRetried(model),
                    (model, beanName, retrier, unusedTimer) -> OllamaChatModelRebuild.rebuild(model, beanName, retrier,
                            errorHandler.getIfAvailable(() -> RetryUtils.DEFAULT_RESPONSE_ERROR_HANDLER)),
                    retriers, timer);
        }
    }
}
