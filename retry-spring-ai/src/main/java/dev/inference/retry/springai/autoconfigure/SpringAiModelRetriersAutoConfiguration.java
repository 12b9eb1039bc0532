package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.autoconfigure.BeanRetriers;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.RetriedBeanType;
import dev.inference.retry.springai.ModelRetriers;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * makes every Spring AI {@link ChatModel} bean a retried bean of the application's
 * {@code inference.retry.*} settings: its entry under {@code inference.retry.clients} is validated at
 * startup with the others, it must resolve to a complete, valid policy, and its retrier (from
 * {@link BeanRetriers}) carries the application's listeners, meters, budget, cool-down, shutdown signal
 * and observations under the bean's name. {@link SpringAiRetryAutoConfiguration} then retries the
 * beans with it. The embedding models that a provider integration retries are declared retried by that
 * integration (such as {@code OpenAiEmbeddingModel}); other embedding models are not retried, and an
 * entry naming one names no retried bean.
 *
 * <p>With {@code inference.retry.spring-ai.enabled=false}, chat and embedding model beans are left
 * alone: an entry naming one is accepted, and nothing of the bean is validated, retried or reported.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class)
@ConditionalOnClass(ChatModel.class)
@ConditionalOnBean(BeanRetriers.class)
public final class SpringAiModelRetriersAutoConfiguration {

    private static final String ENABLED = "inference.retry.spring-ai.enabled";

    @Bean
    @ConditionalOnBooleanProperty(name = ENABLED, matchIfMissing = true)
    RetriedBeanType inferenceRetryChatModels() {
        return RetriedBeanType.retried(ChatModel.class);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = ENABLED, havingValue = false)
    RetriedBeanType inferenceRetryChatModelsLeftAlone() {
        return RetriedBeanType.leftAlone(ChatModel.class);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = ENABLED, havingValue = false)
    RetriedBeanType inferenceRetryEmbeddingModelsLeftAlone() {
        return RetriedBeanType.leftAlone(EmbeddingModel.class);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = ENABLED, matchIfMissing = true)
    @ConditionalOnMissingBean
    ModelRetriers inferenceRetryModelRetriers(BeanRetriers retriers) {
        return retriers::retrierFor;
    }
}
