package dev.inference.retry.springai.google;

import com.google.genai.Client;
import dev.inference.retry.autoconfigure.RetryTimer;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.support.ModelRetryPostProcessor;
import okhttp3.OkHttpClient;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Retries every {@link GoogleGenAiChatModel} bean beneath the bean, on the Google GenAI SDK's OkHttp
 * client; imported by the auto-configuration (see {@link GoogleProvider}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ GoogleGenAiChatModel.class, Client.class, OkHttpClient.class })
@ImportRuntimeHints(GoogleRetryRuntimeHints.class)
class GoogleRetryConfiguration {

    @Bean
    static ModelRetryPostProcessor<GoogleGenAiChatModel> inferenceRetryGoogleGenAiChatModelPostProcessor(
            ObjectProvider<ModelRetriers> retriers, ObjectProvider<RetryTimer> timer) {
        return new ModelRetryPostProcessor<>(GoogleGenAiChatModel.class,
                (model, beanName) -> GoogleGenAiChatModelRebuild.isRetried(model),
                (model, beanName, retrier, unusedTimer) -> GoogleGenAiChatModelRebuild.rebuild(model, beanName,
                        retrier),
                retriers, timer);
    }
}
