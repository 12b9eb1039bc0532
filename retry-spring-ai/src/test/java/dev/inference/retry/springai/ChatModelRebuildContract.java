package dev.inference.retry.springai;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.RetryTimer;
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
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.BeanDefinitionHolder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * What the auto-configuration does with the chat model bean of every provider whose model it rebuilds
 * beneath the bean: when it rebuilds the model, when it backs off, and that the rebuilt model keeps what
 * it was built with. A subclass per provider says how its model is configured, built and recognised
 * once retried. Only the test of the observations calls the model; the others never reach the
 * provider's address.
 *
 * @param <M> the provider's chat model class
 */
public abstract class ChatModelRebuildContract<M extends ChatModel> {

    /** The root of an address where no provider listens. */
    public static final String UNUSED_PROVIDER = "http://127.0.0.1:9";

    private final List<String> asked = new CopyOnWriteArrayList<>();

    /** Returns the name of the model's bean. */
    protected abstract String beanName();

    /** Returns the provider's chat model class. */
    protected abstract Class<M> modelClass();

    /** Returns the class of the model's bean once the model is rebuilt. */
    protected abstract Class<? extends M> rebuiltClass();

    /** Returns the name of the post-processor that rebuilds the provider's model. */
    protected abstract String postProcessor();

    /**
     * Returns a runner with the provider's auto-configurations, its model pointed at a provider at this
     * root ({@code http://host:port} and a path prefix, if any) and its own client's retries left as
     * the retried model needs them.
     */
    protected abstract ApplicationContextRunner runnerAgainst(String root);

    /** Returns the property of one of the model's default options, as the application sets it. */
    protected abstract String optionProperty(String option);

    /** Returns a model the application built itself, pointed at {@link #UNUSED_PROVIDER}. */
    protected abstract M builtByTheApplication();

    /** Returns whether this model is rebuilt on retried clients. */
    protected abstract boolean isRetried(M model);

    /** Returns the path below the provider's root of the model's chat requests. */
    protected abstract String chatPath();

    /** Returns a successful answer to a call. */
    protected abstract ResponseDefinitionBuilder completion(String content);

    @Nested
    public class BacksOff {

        @Test
        void withoutSpringAi() {
            new ApplicationContextRunner().withBean(ModelRetriers.class, () -> retriers(true))
                .withClassLoader(new FilteredClassLoader(ChatModel.class))
                .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
                .run((context) -> assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RetryTimer.class)
                    .doesNotHaveBean(postProcessor()));
        }

        @Test
        void withoutTheProvidersModel() {
            assertBacksOffWithout(modelClass());
        }

        @Test
        void withoutModelRetriers() {
            runner().run((context) -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RetryTimer.class)
                    .doesNotHaveBean(postProcessor());
                assertRetried(model(context), false);
            });
        }

        @Test
        void whenSpringAiRetriesAreSwitchedOff() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withPropertyValues("inference.retry.spring-ai.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(postProcessor());
                    assertRetried(model(context), false);
                    assertThat(asked).isEmpty();
                });
        }
    }

    @Nested
    public class Retries {

        @Test
        void aModelWhoseBeanHasARetrierAndStaysAnInstanceOfItsClass() {
            runner().withBean(ModelRetriers.class, () -> retriers(true)).run((context) -> {
                assertThat(context).hasNotFailed().hasSingleBean(modelClass()).hasBean(postProcessor());
                assertThat(context.getBean(beanName())).isExactlyInstanceOf(rebuiltClass());
                assertRetried(model(context), true);
                assertThat(asked).containsOnlyOnce(beanName());
            });
        }

        @Test
        void noModelWhoseBeanHasNoRetrier() {
            runner().withBean(ModelRetriers.class, () -> retriers(false)).run((context) -> {
                assertThat(context).hasNotFailed();
                assertRetried(model(context), false);
                assertThat(asked).containsOnlyOnce(beanName());
            });
        }

        @Test
        void theTargetOfAScopedProxyUnderTheProxysName() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withInitializer((context) -> {
                    BeanDefinitionRegistry registry = (BeanDefinitionRegistry) context;
                    RootBeanDefinition model = new RootBeanDefinition(modelClass(),
                            ChatModelRebuildContract.this::builtByTheApplication);
                    BeanDefinitionHolder proxy = ScopedProxyUtils.createScopedProxy(
                            new BeanDefinitionHolder(model, beanName()), registry, false);
                    registry.registerBeanDefinition(proxy.getBeanName(), proxy.getBeanDefinition());
                })
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(beanName())).isInstanceOf(ChatModel.class);
                    assertRetried(context.getBean(ScopedProxyUtils.getTargetBeanName(beanName()), modelClass()), true);
                    assertThat(asked).contains(beanName()).doesNotContain(ScopedProxyUtils.getTargetBeanName(beanName()));
                });
        }

        @Test
        void aModelTheApplicationBuiltItself() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withBean(beanName(), modelClass(), ChatModelRebuildContract.this::builtByTheApplication)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertRetried(model(context), true);
                });
        }
    }

    @Nested
    public class Keeps {

        @Test
        void theModelsOptions() {
            runner().withBean(ModelRetriers.class, () -> retriers(true))
                .withPropertyValues(optionProperty("model") + "=model-test", optionProperty("temperature") + "=0.3")
                .run((context) -> {
                    ChatOptions options = model(context).getOptions();

                    assertThat(options.getModel()).isEqualTo("model-test");
                    assertThat(options.getTemperature()).isEqualTo(0.3);
                });
        }

        @Test
        void theModelsToolCallingManager() {
            runner().withBean(ModelRetriers.class, () -> retriers(true)).run((context) -> {
                M model = model(context);

                assertThat(ReflectionTestUtils.getField(model, "toolCallingManager"))
                    .isSameAs(context.getBean(ToolCallingManager.class));
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
            withProvider("", (provider) -> runnerAgainst("http://127.0.0.1:" + provider.port())
                .withBean(ModelRetriers.class, () -> retriers(true))
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(ChatModelObservationConvention.class, NamedConvention::new)
                .run((context) -> {
                    M model = model(context);
                    assertRetried(model, true);

                    assertThat(model.call("Hi")).isEqualTo("Hello");
                    assertThat(observed).contains("custom.chat");
                }));
        }
    }

    /** Returns a runner with the provider's auto-configurations, its model pointed at no provider. */
    public ApplicationContextRunner runner() {
        return runnerAgainst(UNUSED_PROVIDER);
    }

    /** Returns the retriers of the application: one for every bean, or none; each bean asked for is noted. */
    public ModelRetriers retriers(boolean retried) {
        Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(50), 3, Duration.ofMillis(50)))
            .name(beanName())
            .build();
        return (name) -> {
            this.asked.add(name);
            return retried ? Optional.of(retrier) : Optional.empty();
        };
    }

    /** Checks that the auto-configuration, with retriers for every bean, backs off without this class. */
    public void assertBacksOffWithout(Class<?> missing) {
        new ApplicationContextRunner().withBean(ModelRetriers.class, () -> retriers(true))
            .withClassLoader(new FilteredClassLoader(missing))
            .withConfiguration(AutoConfigurations.of(SpringAiRetryAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(postProcessor()));
    }

    public void assertRetried(M model, boolean retried) {
        assertThat(isRetried(model)).isEqualTo(retried);
    }

    public M model(ApplicationContext context) {
        return context.getBean(modelClass());
    }

    /** Runs a test against a provider that answers every chat under the path prefix with "Hello". */
    public void withProvider(String prefix, Consumer<WireMockServer> test) {
        WireMockServer provider = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());
        provider.start();
        try {
            provider.stubFor(post(urlEqualTo(prefix + chatPath())).willReturn(completion("Hello")));
            test.accept(provider);
        }
        finally {
            provider.stop();
        }
    }

    /** A convention whose name shows that the model kept it. */
    public static final class NamedConvention implements ChatModelObservationConvention {

        @Override
        public String getName() {
            return "custom.chat";
        }
    }
}
