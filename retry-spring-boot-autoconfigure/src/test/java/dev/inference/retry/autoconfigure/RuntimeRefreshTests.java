package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import dev.inference.retry.autoconfigure.InferenceRetryEndpoint.RefreshDescriptor;
import dev.inference.retry.autoconfigure.fallback.InferenceRetryFallbackAutoConfiguration;
import dev.inference.retry.autoconfigure.refresh.InferenceRetryRefreshAutoConfiguration;
import dev.inference.retry.autoconfigure.refresh.RetryRefresh;
import dev.inference.retry.time.Sleeper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.autoconfigure.ConfigurationPropertiesRebinderAutoConfiguration;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The runtime refresh of SPEC §13 with the real Spring Cloud Context: an {@link EnvironmentChangeEvent}
 * naming {@code inference.retry.*} keys, after a property source was put first, as {@code /actuator/env}
 * does. Waits are virtual; a change "during a wait" is made by the sleeper itself.
 */
@ExtendWith(OutputCaptureExtension.class)
class RuntimeRefreshTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private static final String SOURCE = "refreshTest";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryProtectionAutoConfiguration.class, InferenceRetryFallbackAutoConfiguration.class,
                InferenceRetryEndpointAutoConfiguration.class, InferenceRetryRefreshAutoConfiguration.class,
                ConfigurationPropertiesRebinderAutoConfiguration.class))
        .withUserConfiguration(TestClients.TwoClients.class, OnWait.class)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(TestClients.POLICY)
        .withPropertyValues("management.endpoints.web.exposure.include=inferenceretry");

    /** Puts {@code properties} first in the environment, in place of the last refresh's, and publishes the event. */
    static void refresh(AssertableApplicationContext context, String... properties) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String property : properties) {
            int equals = property.indexOf('=');
            values.put(property.substring(0, equals), property.substring(equals + 1));
        }
        Set<String> keys = new LinkedHashSet<>(values.keySet());
        PropertySource<?> last = context.getEnvironment().getPropertySources().get(SOURCE);
        if (last instanceof MapPropertySource map) {
            keys.addAll(map.getSource().keySet());
        }
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(SOURCE, values));
        context.publishEvent(new EnvironmentChangeEvent(context, keys));
    }

    private static int attemptsOf(AssertableApplicationContext context, String bean) {
        Throwable thrown = catchThrowable(() -> context.getBean(bean, InferenceClient.class).invoke(REQUEST));
        assertThat(thrown).isInstanceOf(ExhaustedException.class);
        return ((ExhaustedException) thrown).attempts();
    }

    private static double refreshes(AssertableApplicationContext context, String result) {
        return context.getBean(MeterRegistry.class).get("inference.retry.refresh").tag("result", result).counter().count();
    }

    private static Script failing(AssertableApplicationContext context) {
        return context.getBean(Script.class).failAlways(new NetworkException("connection reset", null));
    }

    @Nested
    class Applied {

        @Test
        void aRaisedMaxAttemptsAppliesToTheNextCall() {
            runner.run((context) -> {
                failing(context);
                assertThat(attemptsOf(context, "openai")).isEqualTo(3);

                refresh(context, "inference.retry.max-attempts=5");

                assertThat(attemptsOf(context, "openai")).isEqualTo(5);
                assertThat(context.getBean("openai", RetryClient.class).policy().maxAttempts()).isEqualTo(5);
                assertThat(refreshes(context, "applied")).isEqualTo(1);
                assertThat(refreshes(context, "rejected")).isZero();
            });
        }

        @Test
        void aPerBeanOverrideAddedAtRunTimeAppliesToThatBeanOnly() {
            runner.run((context) -> {
                failing(context);

                refresh(context, "inference.retry.clients.local.max-attempts=2");

                assertThat(attemptsOf(context, "local")).isEqualTo(2);
                assertThat(attemptsOf(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void aChangeDuringABackoffWaitAppliesToThatCallsNextDecision() {
            runner.withPropertyValues("inference.retry.max-attempts=2").run((context) -> {
                failing(context);
                context.getBean(OnWait.class).once(() -> refresh(context, "inference.retry.max-attempts=4"));

                assertThat(attemptsOf(context, "openai")).isEqualTo(4);
            });
        }

        @Test
        void aLoweredMaxAttemptsCountsTheAttemptsAlreadyMade() {
            runner.withPropertyValues("inference.retry.max-attempts=5")
                .run((context) -> {
                    failing(context);
                    OnWait onWait = context.getBean(OnWait.class);
                    onWait.once(() -> onWait.once(() -> refresh(context, "inference.retry.max-attempts=2")));

                    // The change comes during the wait after attempt 2: attempt 3 is made, then no more.
                    assertThat(attemptsOf(context, "openai")).isEqualTo(3);
                });
        }

        @Test
        void theEndpointShowsTheConfigurationInForceAndTheLastRefresh() {
            runner.run((context) -> {
                InferenceRetryEndpoint endpoint = context.getBean(InferenceRetryEndpoint.class);
                assertThat(endpoint.clients().refresh()).isNull();

                refresh(context, "inference.retry.clients.local.max-attempts=2");

                assertThat(endpoint.clients().clients().get("local").policy().maxAttempts()).isEqualTo(2);
                RefreshDescriptor last = endpoint.clients().refresh();
                assertThat(last).isNotNull();
                assertThat(last.result()).isEqualTo("applied");
                assertThat(last.reason()).isNull();
            });
        }
    }

    @Nested
    class SwitchedOff {

        @Test
        void aBeanSwitchedOffMakesOneAttemptAndItsFailurePassesThroughUnchanged() {
            runner.run((context) -> {
                NetworkException failure = new NetworkException("connection reset", null);
                Script script = context.getBean(Script.class).failAlways(failure);

                refresh(context, "inference.retry.clients.openai.enabled=false");

                assertThatExceptionOfType(NetworkException.class)
                    .isThrownBy(() -> context.getBean("openai", InferenceClient.class).invoke(REQUEST))
                    .isSameAs(failure);
                assertThat(script.calls()).isEqualTo(1);
                assertThat(context.getBean(InferenceRetryEndpoint.class).clients().clients()).doesNotContainKey("openai");
            });
        }

        @Test
        void retriesAgainOnceSwitchedBackOn() {
            runner.run((context) -> {
                failing(context);
                refresh(context, "inference.retry.clients.openai.enabled=false");

                refresh(context, "inference.retry.clients.openai.enabled=true");

                assertThat(attemptsOf(context, "openai")).isEqualTo(3);
            });
        }

        @Test
        void aBeanLeftUnwrappedAtStartupCannotBeSwitchedOn() {
            runner.withPropertyValues("inference.retry.clients.local.enabled=false").run((context) -> {
                refresh(context, "inference.retry.clients.local.enabled=true", "inference.retry.max-attempts=5");

                assertThat(context.getBean("local")).isNotInstanceOf(RetryClient.class);
                assertThat(context.getBean("openai", RetryClient.class).policy().maxAttempts()).isEqualTo(3);
                assertThat(refreshes(context, "rejected")).isEqualTo(1);
            });
        }
    }

    @Nested
    class Rejected {

        @Test
        void anInvalidChangeIsRefusedWholeAndTheOldPolicyKept(CapturedOutput output) {
            runner.run((context) -> {
                failing(context);

                refresh(context, "inference.retry.max-attempts=5", "inference.retry.clients.local.stable-delay=-1s");

                assertThat(attemptsOf(context, "openai")).isEqualTo(3);
                assertThat(attemptsOf(context, "local")).isEqualTo(3);
                assertThat(refreshes(context, "rejected")).isEqualTo(1);
                assertThat(refreshes(context, "applied")).isZero();
                assertThat(output).containsOnlyOnce("Refused a refresh of inference.retry")
                    .contains("inference.retry.clients.local.stable-delay = PT-1S is invalid");
                RefreshDescriptor last = context.getBean(InferenceRetryEndpoint.class).clients().refresh();
                assertThat(last).isNotNull();
                assertThat(last.result()).isEqualTo("rejected");
            });
        }

        @Test
        void anEntryNamingNoBeanIsRefusedWithTheStartupWords() {
            runner.run((context) -> {
                refresh(context, "inference.retry.clients.opnai.max-attempts=5");

                RefreshDescriptor last = context.getBean(InferenceRetryEndpoint.class).clients().refresh();
                assertThat(last).isNotNull();
                assertThat(last.reason()).contains("inference.retry.clients.opnai names no InferenceClient bean");
            });
        }

        @Test
        void aMisspeltKeyIsRefusedAsAtStartup() {
            runner.run((context) -> {
                refresh(context, "inference.retry.max-atempts=5");

                RefreshDescriptor last = context.getBean(InferenceRetryEndpoint.class).clients().refresh();
                assertThat(last).isNotNull();
                assertThat(last.reason()).contains("Property: inference.retry.max-atempts")
                    .contains("is not a retry property");
            });
        }

        @Test
        void aStoreChangeIsRefusedWithNothingApplied(CapturedOutput output) {
            runner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                failing(context);

                refresh(context, "inference.retry.cooldown.store=redis", "inference.retry.max-attempts=5");

                assertThat(attemptsOf(context, "openai")).isEqualTo(3);
                assertThat(refreshes(context, "rejected")).isEqualTo(1);
                assertThat(output).contains("inference.retry.cooldown.store = redis cannot change while the "
                        + "application runs: the cool-down store is made at startup");
            });
        }

        @Test
        void keysOfOtherPrefixesChangeNothingAndCountNothing() {
            runner.run((context) -> {
                failing(context);
                context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(SOURCE,
                        Map.of("inference.retry.max-attempts", "5", "spring.application.name", "other")));

                context.publishEvent(new EnvironmentChangeEvent(context, Set.of("spring.application.name")));

                assertThat(attemptsOf(context, "openai")).isEqualTo(3);
                assertThat(refreshes(context, "applied")).isZero();
                assertThat(refreshes(context, "rejected")).isZero();
                assertThat(context.getBean(InferenceRetryEndpoint.class).clients().refresh()).isNull();
            });
        }
    }

    @Nested
    class Chains {

        private final ApplicationContextRunner chained = runner.withPropertyValues(
                "inference.retry.fallbacks.chat.members=openai, backup", "inference.retry.fallbacks.chat.skip-after=3",
                "inference.retry.fallbacks.chat.skip-for=10m")
            .withUserConfiguration(Backup.class);

        @Test
        void aSkipAfterChangedDuringAMembersBackoffAppliesToThatCallsFallOver() {
            chained.run((context) -> {
                Script openai = failing(context);
                InferenceClient chat = context.getBean("chat", InferenceClient.class);
                context.getBean(OnWait.class).once(() -> refresh(context, "inference.retry.fallbacks.chat.skip-after=1",
                        "inference.retry.fallbacks.chat.skip-for=10m"));

                assertThat(chat.invoke(REQUEST).output()).isEqualTo("ok");
                assertThat(openai.calls()).isEqualTo(3);

                assertThat(chat.invoke(REQUEST).output()).isEqualTo("ok");
                assertThat(openai.calls()).as("skipped after one fall-over").isEqualTo(3);
            });
        }

        @Test
        void aMembersModelSetAtRunTimeAppliesToItsNextCall() {
            runner.withPropertyValues("inference.retry.fallbacks.chat.members=openai, backup")
                .withUserConfiguration(ModelsSeen.class)
                .run((context) -> {
                    failing(context);
                    InferenceClient chat = context.getBean("chat", InferenceClient.class);
                    chat.invoke(REQUEST);

                    refresh(context, "inference.retry.fallbacks.chat.models.backup=backup-model");
                    chat.invoke(REQUEST);

                    assertThat(context.getBean(ModelsSeen.class).models).containsExactly("model", "backup-model");
                });
        }

        @Test
        void aChangedMemberListIsRefused() {
            chained.run((context) -> {
                refresh(context, "inference.retry.fallbacks.chat.members=backup, openai");

                RefreshDescriptor last = context.getBean(InferenceRetryEndpoint.class).clients().refresh();
                assertThat(last).isNotNull();
                assertThat(last.reason()).startsWith("inference.retry.fallbacks.chat.members = [backup, openai] cannot "
                        + "change while the application runs");
            });
        }
    }

    @Nested
    class WithoutSpringCloud {

        @Test
        void nothingOfTheRefreshIsLoaded() {
            new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class))
                .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class))
                .withUserConfiguration(TestClients.TwoClients.class)
                .withPropertyValues(TestClients.POLICY)
                .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryRefresh.class));
        }
    }

    @Nested
    class UnderConcurrentCalls {

        /** Configuration A: 2 attempts, openai's stable delay 10ms; B: 3 attempts, 20ms. */
        private static final String[] A = { "inference.retry.max-attempts=2", "inference.retry.clients.openai.stable-delay=10ms" };

        private static final String[] B = { "inference.retry.max-attempts=3", "inference.retry.clients.openai.stable-delay=20ms" };

        @Test
        void everyDecisionIsMadeUnderOneConfigurationNeverHalfOfEach() throws InterruptedException {
            runner.withUserConfiguration(Decisions.class).withPropertyValues(A).run((context) -> {
                failing(context);
                InferenceClient openai = context.getBean("openai", InferenceClient.class);
                Decisions decisions = context.getBean(Decisions.class);
                AtomicInteger flipsStarted = new AtomicInteger();
                AtomicInteger flipsEnded = new AtomicInteger();
                AtomicReference<@Nullable Throwable> broken = new AtomicReference<>();
                AtomicInteger unflipped = new AtomicInteger();
                AtomicInteger calls = new AtomicInteger();
                List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    Thread caller = new Thread(() -> {
                        while (flipsEnded.get() < 1000 && broken.get() == null) {
                            List<String> trace = List.of();
                            try {
                                int ended = flipsEnded.get();
                                boolean quiet = flipsStarted.get() == ended;
                                decisions.clear();
                                Throwable thrown = catchThrowable(() -> openai.invoke(REQUEST));
                                assertThat(thrown).isInstanceOf(ExhaustedException.class);
                                trace = decisions.trace(((ExhaustedException) thrown).attempts());
                                boolean whole = quiet && flipsStarted.get() == ended;
                                // Each retry's delay is that of the configuration whose max-attempts allowed it.
                                assertThat(trace).allMatch((step) -> !step.equals("retry 2 after PT0.02S"));
                                assertThat(trace.get(0)).isIn("retry 1 after PT0.01S", "retry 1 after PT0.02S");
                                if (whole) {
                                    unflipped.incrementAndGet();
                                    assertThat(trace).isIn(List.of("retry 1 after PT0.01S", "exhausted after 2"),
                                            List.of("retry 1 after PT0.02S", "retry 2 after PT0.04S", "exhausted after 3"));
                                }
                            }
                            catch (Throwable ex) {
                                broken.compareAndSet(null, new AssertionError(trace.toString(), ex));
                            }
                            calls.incrementAndGet();
                            // Eight callers on two cores would otherwise starve the thread that flips.
                            Thread.yield();
                        }
                    });
                    callers.add(caller);
                    caller.start();
                }
                for (int flip = 0; flip < 1000; flip++) {
                    flipsStarted.incrementAndGet();
                    refresh(context, (flip % 2 == 0) ? B : A);
                    flipsEnded.incrementAndGet();
                    // Some calls run whole between two flips: each of those runs under one configuration.
                    int made = calls.get();
                    while (flip < 999 && calls.get() < made + 8 && broken.get() == null) {
                        Thread.onSpinWait();
                    }
                }
                for (Thread caller : callers) {
                    caller.join(30_000);
                }
                assertThat(broken.get()).isNull();
                assertThat(unflipped.get()).isPositive();
                assertThat(refreshes(context, "applied")).isEqualTo(1000);
                assertThat(context.getBean("openai", RetryClient.class).policy().maxAttempts()).isEqualTo(2);
            });
        }
    }

    /**
     * Every retried bean's sleeper: records nothing, waits nothing, and runs an action (once) at the
     * next wait, so that a test changes the configuration while a call waits.
     */
    @Configuration(proxyBeanMethods = false)
    static class OnWait implements Sleeper {

        private final AtomicReference<@Nullable Runnable> next = new AtomicReference<>();

        void once(Runnable action) {
            this.next.set(action);
        }

        @Override
        public void sleep(Duration delay, CallContext context) {
            Runnable action = this.next.getAndSet(null);
            if (action != null) {
                action.run();
            }
        }

        @Bean
        RetrierCustomizer onWaitSleeper() {
            return (beanName, builder) -> builder.sleeper(this).random(new VirtualTime.MidpointRandom());
        }
    }

    /** A second member of the chain, which always answers. */
    @Configuration(proxyBeanMethods = false)
    static class Backup {

        @Bean
        InferenceClient backup() {
            return new ScriptedClient(new Script());
        }
    }

    /** A second member of the chain, which always answers and keeps the model of each request. */
    @Configuration(proxyBeanMethods = false)
    static class ModelsSeen {

        final List<String> models = new CopyOnWriteArrayList<>();

        @Bean
        InferenceClient backup() {
            return new InferenceClient() {

                @Override
                public InferenceResponse invoke(InferenceRequest request, CallContext context) {
                    ModelsSeen.this.models.add(request.model());
                    return InferenceResponse.of("ok");
                }

                @Override
                public StreamReader stream(InferenceRequest request, CallContext context) {
                    throw new UnsupportedOperationException("invoke only");
                }
            };
        }
    }

    /** What each decision of the calling thread's call was. */
    @Configuration(proxyBeanMethods = false)
    static class Decisions implements RetryListener {

        private final ThreadLocal<List<String>> steps = ThreadLocal.withInitial(ArrayList::new);

        void clear() {
            this.steps.get().clear();
        }

        List<String> trace(int attempts) {
            List<String> trace = new ArrayList<>(this.steps.get());
            trace.add("exhausted after " + attempts);
            return trace;
        }

        @Override
        public void retryScheduled(AttemptEvent failed, Duration delay) {
            this.steps.get().add("retry " + failed.attempt() + " after " + delay);
        }
    }
}
