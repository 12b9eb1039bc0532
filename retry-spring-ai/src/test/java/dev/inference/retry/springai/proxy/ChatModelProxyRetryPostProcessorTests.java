package dev.inference.retry.springai.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.anthropic.AnthropicProvider;
import dev.inference.retry.springai.autoconfigure.ModelNotRetriableFailureAnalyzer;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import dev.inference.retry.springai.ollama.OllamaProvider;
import dev.inference.retry.springai.openai.OpenAiProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.standin.StandInChatModel;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.core.retry.RetryTemplate;

/**
 * Which chat model beans the post-processor makes proxies of, which it leaves alone and which it refuses.
 */
class ChatModelProxyRetryPostProcessorTests {

    private static final Retrier RETRIER = Retrier.builder(new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1)))
        .name("model")
        .build();

    private final List<String> asked = new CopyOnWriteArrayList<>();

    private final ChatModelProxyRetryPostProcessor postProcessor = postProcessor();

    private ChatModelProxyRetryPostProcessor postProcessor() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("retriers", (ModelRetriers) (name) -> {
            this.asked.add(name);
            return Optional.of(RETRIER);
        });
        return new ChatModelProxyRetryPostProcessor(beans.getBeanProvider(ModelRetriers.class),
                beans.getBeanProvider(ChatModelFailureTranslator.class),
                List.of(OpenAiProvider.DESCRIPTION, AnthropicProvider.DESCRIPTION, OllamaProvider.DESCRIPTION));
    }

    private static boolean isRetried(Object bean) {
        return bean instanceof Advised advised && List.of(advised.getAdvisors())
            .stream()
            .anyMatch((advisor) -> advisor.getAdvice() instanceof RetryingChatModelInterceptor);
    }

    @Nested
    class MakesAProxy {

        @Test
        void ofTheModelsOwnClass() {
            Object retried = postProcessor.postProcessAfterInitialization(new AnswersHello(), "model");

            assertThat(retried).isInstanceOf(AnswersHello.class);
            assertThat(AopUtils.isCglibProxy(retried)).isTrue();
            assertThat(isRetried(retried)).isTrue();
        }

        @Test
        void classDuringAheadOfTimeProcessing() {
            Class<?> type = postProcessor.determineBeanType(AnswersHello.class, "model");

            assertThat(type).isNotEqualTo(AnswersHello.class);
            assertThat(AnswersHello.class).isAssignableFrom(type);
        }
    }

    @Nested
    class AddsItsAdvice {

        @Test
        void toAModelThatIsAlreadyAProxy() {
            ProxyFactory factory = new ProxyFactory(new AnswersHello());
            factory.setProxyTargetClass(true);
            Object proxy = factory.getProxy();

            assertThat(postProcessor.postProcessAfterInitialization(proxy, "model")).isSameAs(proxy);
            assertThat(isRetried(proxy)).isTrue();
        }

        @Test
        void onlyOnce() {
            Object retried = postProcessor.postProcessAfterInitialization(new AnswersHello(), "model");

            assertThat(postProcessor.postProcessAfterInitialization(retried, "model")).isSameAs(retried);
            assertThat(((Advised) retried).getAdvisors()).hasSize(1);
            assertThat(asked).containsExactly("model");
        }
    }

    @Nested
    class AddsItsAdviceThroughAnInterface {

        @Test
        void toAnInterfaceProxyOfAModelWhoseCallMethodIsFinal() {
            Object proxy = new ProxyFactory(new FinalCall()).getProxy();

            assertThat(AopUtils.isJdkDynamicProxy(proxy)).isTrue();
            assertThat(postProcessor.postProcessAfterInitialization(proxy, "finalCall")).isSameAs(proxy);
            assertThat(isRetried(proxy)).isTrue();
        }
    }

    @Nested
    class LeavesAlone {

        @Test
        void aChatModelOfSpringAisOwnWhoseBeanHasNoRetrier() {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(ModelRetriers.class, () -> (name) -> Optional.empty())
                .withBean("mistralAiChatModel", StandInChatModel.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("mistralAiChatModel")).isExactlyInstanceOf(StandInChatModel.class);
                });
        }

        @Test
        void aModelRetriedBeneathTheBeanWithoutAskingForItsRetrier() {
            OpenAiChatModel openAi = OpenAiChatModel.builder()
                .options(OpenAiChatOptions.builder().baseUrl("http://127.0.0.1:9/v1").apiKey("test").maxRetries(0).build())
                .build();

            assertThat(postProcessor.postProcessAfterInitialization(openAi, "openAiChatModel")).isSameAs(openAi);
            assertThat(postProcessor.determineBeanType(OpenAiChatModel.class, "openAiChatModel"))
                .isEqualTo(OpenAiChatModel.class);
            assertThat(asked).isEmpty();
        }

        @Test
        void theTargetOfAScopedProxy() {
            AnswersHello target = new AnswersHello();

            assertThat(postProcessor.postProcessAfterInitialization(target, "scopedTarget.model")).isSameAs(target);
            assertThat(asked).isEmpty();
        }

        @Test
        void aBeanThatIsNotAChatModel() {
            Object other = new Object();

            assertThat(postProcessor.postProcessAfterInitialization(other, "other")).isSameAs(other);
        }
    }

    @Nested
    class Refuses {

        @Test
        void aChatModelOfSpringAisOwnThatNoProviderRetriesNamingTheBeanAndTheFix() {
            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(new StandInChatModel(), "mistralAiChatModel"))
                .withMessageStartingWith("Cannot retry the chat model bean 'mistralAiChatModel': its class "
                        + StandInChatModel.class.getName() + " is a chat model of Spring AI's own that no provider "
                        + "integration of this module retries (it retries the exchanges of Spring AI's "
                        + "AnthropicChatModel, OllamaChatModel, OpenAiChatModel beneath the bean)")
                .withMessageEndingWith("set inference.retry.clients.mistralAiChatModel.enabled=false (or "
                        + "inference.retry.spring-ai.enabled=false for every Spring AI model)");
        }

        @Test
        void aSubclassOfAChatModelOfSpringAisOwn() {
            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(new ExtendsStandIn(), "model"))
                .withMessageContaining("its class " + ExtendsStandIn.class.getName() + " extends "
                        + StandInChatModel.class.getName() + ", a chat model of Spring AI's own");
        }

        @Test
        void aChatModelOfSpringAisOwnBehindAnInterfaceProxyAlreadyMade() {
            Object proxy = new ProxyFactory(new StandInChatModel()).getProxy();

            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(proxy, "bedrockProxyChatModel"))
                .withMessageContaining("a chat model of Spring AI's own");
            assertThat(isRetried(proxy)).isFalse();
        }

        @Test
        void noProxyClassOfAChatModelOfSpringAisOwnDuringAheadOfTimeProcessing() {
            assertThat(postProcessor.determineBeanType(StandInChatModel.class, "model")).isEqualTo(StandInChatModel.class);
        }

        @Test
        void aChatModelOfSpringAisOwnAtStartupWithTheReport() {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withBean("mistralAiChatModel", StandInChatModel.class)
                .run((context) -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis report = new ModelNotRetriableFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(report.getDescription())
                        .startsWith("The chat model bean 'mistralAiChatModel' is to be retried")
                        .contains("a chat model of Spring AI's own");
                    assertThat(report.getAction()).contains("inference.retry.clients.mistralAiChatModel.enabled=false");
                });
        }

        @Test
        void aModelWhoseClassIsFinalNamingTheBeanAndTheFix() {
            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(new FinalChatModel(), "finalChatModel"))
                .withMessageContaining("'finalChatModel'")
                .withMessageContaining("its class " + FinalChatModel.class.getName() + " is final")
                .withMessageContaining("set inference.retry.clients.finalChatModel.enabled=false")
                .satisfies((ex) -> assertThat(ex.beanName()).isEqualTo("finalChatModel"));
        }

        @Test
        void aModelWhoseCallMethodIsFinal() {
            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(new FinalCall(), "finalCall"))
                .withMessageContaining("its method " + FinalCall.class.getName() + ".call(Prompt) is final");
        }

        @Test
        void aModelThatRetriesItsExchangesWithARetryTemplateOfItsOwn() {
            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(new RetriesItself(), "mistralAiChatModel"))
                .withMessageContaining("it retries each exchange itself, with the RetryTemplate in its field "
                        + RetriesItself.class.getName() + ".retryTemplate")
                .withMessageContaining("set inference.retry.clients.mistralAiChatModel.enabled=false");
        }

        @Test
        void aModelThatRetriesItselfBehindAProxyAlreadyMade() {
            ProxyFactory factory = new ProxyFactory(new RetriesItself());
            factory.setProxyTargetClass(true);
            Object proxy = factory.getProxy();

            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(proxy, "mistralAiChatModel"))
                .withMessageContaining("it retries each exchange itself");
            assertThat(isRetried(proxy)).isFalse();
        }

        @Test
        void aModelWhoseCallMethodIsFinalBehindAClassProxyAlreadyMade() {
            ProxyFactory factory = new ProxyFactory(new FinalCall());
            factory.setProxyTargetClass(true);
            Object proxy = factory.getProxy();

            assertThatExceptionOfType(ModelNotRetriableException.class)
                .isThrownBy(() -> postProcessor.postProcessAfterInitialization(proxy, "finalCall"))
                .withMessageContaining("its method " + FinalCall.class.getName() + ".call(Prompt) is final");
        }

        @Test
        void aModelThatRetriesItselfBehindAScopedProxyWhenTheProxyIsFirstObtained() {
            // A scoped proxy is a factory bean's product, made when first asked for, not at startup.
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withUserConfiguration(ScopedSelfRetryingModel.class)
                .run((context) -> assertThatException().isThrownBy(() -> context.getBean("appChatModel"))
                    .havingRootCause()
                    .isInstanceOf(ModelNotRetriableException.class)
                    .withMessageContaining("'appChatModel'")
                    .withMessageContaining("it retries each exchange itself"));
        }

        @Test
        void aFinalModelAtStartupWithTheReport() {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .withBean(ModelRetriers.class, () -> (name) -> Optional.of(RETRIER))
                .withBean("finalChatModel", FinalChatModel.class)
                .run((context) -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis report = new ModelNotRetriableFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(report.getDescription()).startsWith("The chat model bean 'finalChatModel' is to be retried")
                        .contains(FinalChatModel.class.getName() + " is final");
                    assertThat(report.getAction()).contains("inference.retry.clients.finalChatModel.enabled=false");
                });
        }
    }

    /** An application's model that retries itself, as a bean behind a scoped proxy of its class. */
    @Configuration(proxyBeanMethods = false)
    static class ScopedSelfRetryingModel {

        @Bean
        @Scope(proxyMode = ScopedProxyMode.TARGET_CLASS)
        RetriesItself appChatModel() {
            return new RetriesItself();
        }
    }

    /** A chat model that retries its own exchanges, as Spring AI's models on spring-ai-retry do. */
    static class RetriesItself extends AnswersHello {

        // Held as Spring AI's models on spring-ai-retry hold theirs, around each exchange.
        private final RetryTemplate retryTemplate = new RetryTemplate();

        RetryTemplate retryTemplate() {
            return this.retryTemplate;
        }
    }

    /** An application's chat model that a subclass can retry. */
    static class AnswersHello implements ChatModel {

        @Override
        public ChatResponse call(Prompt prompt) {
            return new ChatResponse(List.of(new Generation(new AssistantMessage("Hello"))));
        }
    }

    /** An application's chat model that extends one of Spring AI's own. */
    static class ExtendsStandIn extends StandInChatModel {
    }

    /** An application's chat model that no subclass can retry. */
    static final class FinalChatModel implements ChatModel {

        @Override
        public ChatResponse call(Prompt prompt) {
            return new ChatResponse(List.of());
        }
    }

    /** An application's chat model whose call no subclass can intercept. */
    static class FinalCall implements ChatModel {

        @Override
        public final ChatResponse call(Prompt prompt) {
            return new ChatResponse(List.of());
        }
    }
}
