package dev.inference.retry.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelRetriers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.web.client.ResourceAccessException;

/**
 * An application processed by Spring AOT, and then run from the generated code as it runs with
 * {@code spring.aot.enabled=true}: the proxy of a chat model's class is generated at build time, with
 * its reflection hints, and retries the model when the application runs. The test runs in a class loader
 * of its own, so that the generated code reaches the package-private classes it instantiates.
 */
@CompileWithForkedClassLoader
class ChatModelProxyRetryAotTests {

    private static final String AOT_ENABLED = "spring.aot.enabled";

    @AfterEach
    void leaveAotMode() {
        System.clearProperty(AOT_ENABLED);
    }

    @Test
    void theProxyIsGeneratedAtBuildTimeAndRetriesTheModelWhenTheApplicationRuns() {
        GenericApplicationContext application = new GenericApplicationContext();
        application.registerBeanDefinition("retriers", new RootBeanDefinition(EveryModelRetried.class));
        AnnotationConfigUtils.registerAnnotationConfigProcessors(application);
        application.registerBeanDefinition("otherChatModels",
                new RootBeanDefinition(SpringAiRetryAutoConfiguration.OtherChatModels.class));
        application.registerBeanDefinition("flakyChatModel", new RootBeanDefinition(FlakyChatModel.class));
        TestGenerationContext generation = new TestGenerationContext();

        ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(application, generation);
        generation.writeGeneratedContent();

        String proxyClass = generatedProxyClass(generation);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(proxyClass)))
            .accepts(generation.getRuntimeHints());
        System.setProperty(AOT_ENABLED, "true");
        TestCompiler.forSystem().with(generation).compile((compiled) -> {
            try (GenericApplicationContext running = new GenericApplicationContext()) {
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> aot = compiled
                    .getInstance(ApplicationContextInitializer.class, initializer.toString());
                aot.initialize(running);
                running.refresh();
                FlakyChatModel model = running.getBean(FlakyChatModel.class);

                assertThat(model.getClass().getName()).isEqualTo(proxyClass);
                assertThat(model.call(new Prompt("Hi")).getResult().getOutput().getText()).isEqualTo("Hello");
                assertThat(model.attempts()).isEqualTo(3);
            }
        });
    }

    private static String generatedProxyClass(TestGenerationContext generation) {
        List<String> proxies = generation.getGeneratedFiles()
            .getGeneratedFiles(GeneratedFiles.Kind.CLASS)
            .keySet()
            .stream()
            .filter((path) -> path.contains("FlakyChatModel$$SpringCGLIB$$"))
            .toList();
        assertThat(proxies).as("proxy classes generated at build time").hasSize(1);
        return proxies.get(0).replace(".class", "").replace('/', '.');
    }

    /** Gives every chat model bean a retrier of three quick attempts. */
    static class EveryModelRetried implements ModelRetriers {

        @Override
        public Optional<Retrier> retrierFor(String beanName) {
            return Optional.of(Retrier.builder(new Policy(0, Duration.ofMillis(1), 3, Duration.ofMillis(1)))
                .name(beanName)
                .build());
        }
    }

    /** Fails its first two calls as a client that cannot reach its provider does, then answers. */
    static class FlakyChatModel implements ChatModel {

        private final AtomicInteger attempts = new AtomicInteger();

        @Override
        public ChatResponse call(Prompt prompt) {
            if (this.attempts.incrementAndGet() < 3) {
                throw new ResourceAccessException("I/O error: connection refused");
            }
            return new ChatResponse(List.of(new Generation(new AssistantMessage("Hello"))));
        }

        /** How many calls the model has had: through its proxy, a method and not a field. */
        int attempts() {
            return this.attempts.get();
        }
    }
}
