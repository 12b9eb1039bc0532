package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.RetryClient;
import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.autoconfigure.fallback.FallbackMemberKind;
import dev.inference.retry.autoconfigure.fallback.InferenceRetryFallbackAutoConfiguration;
import dev.inference.retry.autoconfigure.fallback.InvalidFallbackPropertyException;
import dev.inference.retry.fallback.FallbackClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Fallback chains declared in {@code inference.retry.fallbacks.*}: registered as beans of their
 * members' type, validated at startup, counted and shown by the endpoint.
 */
class FallbackChainAutoConfigurationTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryFallbackAutoConfiguration.class, InferenceRetryEndpointAutoConfiguration.class))
        .withUserConfiguration(VirtualTime.class, Members.class)
        .withPropertyValues(TestClients.POLICY)
        .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry",
                "inference.retry.fallbacks.chat.members=openai, anthropic");

    @Nested
    class Registration {

        @Test
        void registersTheChainAsABeanOfItsMembersType() {
            runner.run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean("chat")).isInstanceOf(FallbackClient.class);
                assertThat(context.getBean("chat", InferenceClient.class)).isNotInstanceOf(RetryClient.class);
                assertThat(context.getBean("openai")).isInstanceOf(RetryClient.class);
                assertThat(context.getBean("anthropic")).isInstanceOf(RetryClient.class);
            });
        }

        @Test
        void answersFromTheNextMemberWhenTheFirstIsExhausted() {
            runner.run((context) -> {
                context.getBean("openaiTarget", Scripted.class).failWith(unavailable(), unavailable(), unavailable());

                InferenceResponse response = context.getBean("chat", InferenceClient.class).invoke(REQUEST);

                assertThat(response.output()).isEqualTo("anthropic");
                assertThat(response.attempts()).isEqualTo(4);
            });
        }

        @Test
        void makesThePrimaryChainThePrimaryBeanOfItsType() {
            runner.withPropertyValues("inference.retry.fallbacks.chat.primary=true")
                .run((context) -> assertThat(context.getBean(InferenceClient.class)).isSameAs(context.getBean("chat")));
        }

        @Test
        void leavesTheTypeWithoutAPrimaryBeanUnlessAsked() {
            runner.run((context) -> assertThat(context.getBeanProvider(InferenceClient.class).getIfUnique()).isNull());
            runner.run((context) -> org.assertj.core.api.Assertions
                .assertThatExceptionOfType(NoUniqueBeanDefinitionException.class)
                .isThrownBy(() -> context.getBean(InferenceClient.class)));
        }

        @Test
        void givesAMemberItsOwnModel() {
            runner.withPropertyValues("inference.retry.fallbacks.chat.models.anthropic=claude-test").run((context) -> {
                context.getBean("openaiTarget", Scripted.class).failWith(new HttpStatusException(404, "no model", null));

                context.getBean("chat", InferenceClient.class).invoke(REQUEST);

                assertThat(context.getBean("anthropicTarget", Scripted.class).models).containsExactly("claude-test");
            });
        }

        @Test
        void registersNoChainWhenRetryingIsSwitchedOff() {
            runner.withPropertyValues("inference.retry.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("chat"));
        }
    }

    @Nested
    class Meters {

        private final ApplicationContextRunner metered = runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

        @Test
        void registerTheFallOversOfEveryMemberAtZero() {
            metered.run((context) -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                for (String member : List.of("openai", "anthropic")) {
                    for (String reason : List.of("exhausted", "cooling")) {
                        assertThat(registry.get("inference.retry.fallbacks")
                            .tags("chain", "chat", "member", member, "reason", reason)
                            .counter()
                            .count()).isZero();
                    }
                }
            });
        }

        @Test
        void countEachFallOverAndTheMemberThatAnswered() {
            metered.run((context) -> {
                context.getBean("openaiTarget", Scripted.class).failWith(new HttpStatusException(401, "bad key", null));

                context.getBean("chat", InferenceClient.class).invoke(REQUEST);

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("inference.retry.fallbacks")
                    .tags("chain", "chat", "member", "openai", "reason", "account")
                    .counter()
                    .count()).isEqualTo(1);
                assertThat(registry.get("inference.retry.fallback.calls")
                    .tags("chain", "chat", "answered_by", "anthropic")
                    .counter()
                    .count()).isEqualTo(1);
            });
        }
    }

    @Nested
    class Endpoint {

        @Test
        void listsEachChainWithItsMembersAndWhichAreSkipped() {
            runner.withPropertyValues("inference.retry.fallbacks.chat.skip-after=1",
                    "inference.retry.fallbacks.chat.skip-for=1m").run((context) -> {
                        context.getBean("openaiTarget", Scripted.class)
                            .failWith(new HttpStatusException(403, "forbidden", null));
                        context.getBean("chat", InferenceClient.class).invoke(REQUEST);

                        FallbackChains.ChainDescriptor chain = context.getBean(InferenceRetryEndpoint.class)
                            .clients()
                            .fallbacks()
                            .get("chat");

                        assertThat(chain.members()).containsExactly("openai", "anthropic");
                        assertThat(chain.status().get(0).skipped()).isTrue();
                        assertThat(chain.status().get(0).skippedUntil()).isNotNull();
                        assertThat(chain.status().get(1).skipped()).isFalse();
                    });
        }
    }

    @Nested
    class Refusals {

        static Stream<Arguments> refusals() {
            String chat = "inference.retry.fallbacks.chat.";
            return Stream.of(
                    Arguments.of(List.of(chat + "members=openai"), chat + "members", "at least two members"),
                    Arguments.of(List.of(chat + "members=openai, openai"), chat + "members",
                            "'openai' is named twice"),
                    Arguments.of(List.of(chat + "members=openai, opnai"), chat + "members",
                            "'opnai' names none"),
                    Arguments.of(List.of(chat + "members=openai, other"), chat + "members",
                            "must all be of one kind"),
                    Arguments.of(List.of(chat + "members=openai, backup", "inference.retry.fallbacks.backup.members="
                            + "openai, anthropic"), chat + "members", "'backup' is one"),
                    Arguments.of(List.of(chat + "skip-after=2"), chat + "skip-for", "set together"),
                    Arguments.of(List.of(chat + "skip-for=10s"), chat + "skip-after", "set together"),
                    Arguments.of(List.of(chat + "skip-after=0", chat + "skip-for=10s"), chat + "skip-after",
                            "at least 1"),
                    Arguments.of(List.of(chat + "skip-after=1", chat + "skip-for=0s"), chat + "skip-for",
                            "must be positive"),
                    Arguments.of(List.of(chat + "models.gemini=gemini-pro"), chat + "models.gemini",
                            "must name a member"),
                    Arguments.of(List.of("inference.retry.fallbacks.openaiTarget.members=openai, anthropic"),
                            "inference.retry.fallbacks.openaiTarget", "exists already"));
        }

        @ParameterizedTest
        @MethodSource("refusals")
        void failStartupNamingTheProperty(List<String> properties, String property, String rule) {
            AtomicReference<ConfigurableEnvironment> environment = new AtomicReference<>();
            runner.withUserConfiguration(OtherKind.class)
                .withPropertyValues(properties.toArray(String[]::new))
                .withInitializer((context) -> environment.set(context.getEnvironment()))
                .run((context) -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    assertThat(RetriedClientsTests.causeOfType(failure, InvalidFallbackPropertyException.class))
                        .hasMessageContaining(rule);
                    FailureAnalysis analysis = HostileConfigurationTests.analyze(failure, environment.get());
                    assertThat(analysis.getDescription()).contains("    Property: " + property + "\n");
                    assertThat(analysis.getAction()).contains(property);
                });
        }
    }

    private static HttpStatusException unavailable() {
        return new HttpStatusException(503, "unavailable", null);
    }

    /** Two members, each answering with its own name unless scripted to fail. */
    @Configuration(proxyBeanMethods = false)
    static class Members {

        @Bean
        Scripted openaiTarget() {
            return new Scripted("openai");
        }

        @Bean
        Scripted anthropicTarget() {
            return new Scripted("anthropic");
        }

        @Bean
        InferenceClient openai(Scripted openaiTarget) {
            return openaiTarget.client();
        }

        @Bean
        InferenceClient anthropic(Scripted anthropicTarget) {
            return anthropicTarget.client();
        }
    }

    /** A bean of another kind of member (see {@link OtherModelMembers}). */
    @Configuration(proxyBeanMethods = false)
    static class OtherKind {

        @Bean
        OtherModel other() {
            return new OtherModel() {
            };
        }
    }

    /** A model of a kind other than {@code InferenceClient}, for chains of mixed kinds. */
    interface OtherModel {
    }

    /** The kind of {@link OtherModel} members, listed in the tests' {@code META-INF/spring.factories}. */
    static final class OtherModelMembers implements FallbackMemberKind {

        @Override
        public Class<?> memberType() {
            return OtherModel.class;
        }

        @Override
        public Class<?> chainType() {
            return OtherModel.class;
        }

        @Override
        public String factoryBeanName() {
            return "none";
        }

        @Override
        public String factoryMethodName() {
            return "none";
        }
    }

    /** A client that fails as scripted, then answers with its name, recording the models asked for. */
    static final class Scripted {

        private final String name;

        private final Queue<RuntimeException> failures = new ConcurrentLinkedQueue<>();

        final List<String> models = new CopyOnWriteArrayList<>();

        Scripted(String name) {
            this.name = name;
        }

        void failWith(RuntimeException... failures) {
            this.failures.addAll(List.of(failures));
        }

        InferenceClient client() {
            return new InferenceClient() {

                @Override
                public InferenceResponse invoke(InferenceRequest request, CallContext context) {
                    Scripted.this.models.add(request.model());
                    RuntimeException failure = Scripted.this.failures.poll();
                    if (failure != null) {
                        throw failure;
                    }
                    return InferenceResponse.of(Scripted.this.name);
                }

                @Override
                public StreamReader stream(InferenceRequest request, CallContext context) {
                    throw new UnsupportedOperationException("Not streamed in these tests");
                }
            };
        }
    }
}
