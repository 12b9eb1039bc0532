package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryBudgetExhaustedException;
import dev.inference.retry.RetryClient;
import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class InferenceRetryProtectionAutoConfigurationTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("model", "Hello");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryProtectionAutoConfiguration.class))
        .withUserConfiguration(VirtualTime.class, TestClients.TwoClients.class)
        .withPropertyValues(TestClients.POLICY);

    private static RetryClient client(AssertableApplicationContext context, String name) {
        return context.getBean(name, RetryClient.class);
    }

    private static Throwable rootCause(AssertableApplicationContext context) {
        Throwable cause = context.getStartupFailure();
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Nested
    class Budget {

        @Test
        void isOffUnlessConfigured() {
            runner.run((context) -> assertThat(client(context, "openai").retrier().budget()).isEmpty());
        }

        @Test
        void givesEveryBeanABucketOfItsOwn() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=0.1")
                .run((context) -> {
                    RetryBudget openai = client(context, "openai").retrier().budget().orElseThrow();
                    RetryBudget local = client(context, "local").retrier().budget().orElseThrow();
                    assertThat(openai).isNotSameAs(local);
                    assertThat(openai.maxTokens()).isEqualTo(10);
                    assertThat(openai.tokenRatio()).isEqualByComparingTo("0.1");
                });
        }

        @Test
        void takesABeansFieldsOverTheTopLevelOnes() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=0.1",
                    "inference.retry.clients.local.budget.max-tokens=4")
                .run((context) -> {
                    RetryBudget local = client(context, "local").retrier().budget().orElseThrow();
                    assertThat(local.maxTokens()).isEqualTo(4);
                    assertThat(local.tokenRatio()).isEqualByComparingTo("0.1");
                });
        }

        @Test
        void exemptsABeanWhoseBudgetIsSwitchedOff() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=0.1",
                    "inference.retry.clients.local.budget.enabled=false")
                .run((context) -> {
                    assertThat(client(context, "local").retrier().budget()).isEmpty();
                    assertThat(client(context, "openai").retrier().budget()).isPresent();
                });
        }

        @Test
        void endsACallWhoseRetryItRefuses() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=1", "inference.retry.budget.token-ratio=0.1")
                .run((context) -> {
                    Script script = context.getBean(Script.class).failAlways(new HttpStatusException(503, "busy", null));
                    InferenceClient client = context.getBean("openai", InferenceClient.class);

                    assertThatExceptionOfType(RetryBudgetExhaustedException.class).isThrownBy(() -> client.invoke(REQUEST))
                        .withMessageStartingWith("Retry budget refused a retry after 1 attempt");
                    assertThat(script.calls()).isEqualTo(1);
                });
        }

        @Test
        void failsStartupWhenOnlyOneFieldIsSet() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).isInstanceOf(InvalidRetryPropertyException.class)
                    .hasMessage("InferenceClient bean 'openai': inference.retry.budget.token-ratio is not set: must be "
                            + "set together with inference.retry.budget.max-tokens: a retry budget needs both fields, "
                            + "or neither");
            });
        }

        @Test
        void failsStartupWhenABeansMergedFieldsAreIncomplete() {
            runner.withPropertyValues("inference.retry.clients.local.budget.token-ratio=0.5").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).hasMessageContaining("inference.retry.budget.max-tokens is not set");
            });
        }

        @Test
        void failsStartupForABucketOutOfRange() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=0", "inference.retry.budget.token-ratio=0.1")
                .run((context) -> assertThat(rootCause(context)).hasMessage("InferenceClient bean 'openai': "
                        + "inference.retry.budget.max-tokens = 0 is invalid: must be an integer from 1 to 1000"));
        }

        @Test
        void failsStartupForARatioOutOfRange() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10",
                    "inference.retry.clients.openai.budget.token-ratio=1.5")
                .run((context) -> assertThat(rootCause(context)).hasMessage("InferenceClient bean 'openai': "
                        + "inference.retry.clients.openai.budget.token-ratio = 1.5 is invalid: must be more than 0 and "
                        + "at most 1"));
        }

        @Test
        void failsStartupForARatioThatIsNoNumber() {
            runner.withPropertyValues("inference.retry.budget.max-tokens=10", "inference.retry.budget.token-ratio=lots")
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("inference.retry.budget.token-ratio");
                });
        }
    }

    @Nested
    class Cooldown {

        @Test
        void isNotSharedUnlessAStoreIsSet() {
            runner.run((context) -> {
                assertThat(context).doesNotHaveBean(CooldownStore.class);
                assertThat(client(context, "openai").retrier().cooldownStore()).isEmpty();
            });
        }

        @Test
        void isSharedThroughOneLocalStorePerContext() {
            runner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                LocalCooldownStore store = context.getBean(LocalCooldownStore.class);
                assertThat(client(context, "openai").retrier().cooldownStore()).containsSame(store);
                assertThat(client(context, "local").retrier().cooldownStore()).containsSame(store);
                assertThat(client(context, "openai").retrier().cooldownKey()).isEqualTo("openai");
            });
        }

        @Test
        void isSharedByTheBeansOfOneAccount() {
            // One attempt for openai: its 429 cools the account down and ends its call at once.
            runner.withPropertyValues("inference.retry.cooldown.store=local",
                    "inference.retry.clients.openai.cooldown-key=account", "inference.retry.clients.local.cooldown-key=account",
                    "inference.retry.clients.openai.stable-retries=0", "inference.retry.clients.openai.max-attempts=1")
                .run((context) -> {
                    context.getBean(Script.class)
                        .failNext(new HttpStatusException(429, "slow down", Duration.ofSeconds(30)));
                    assertThatExceptionOfType(ExhaustedException.class)
                        .isThrownBy(() -> context.getBean("openai", InferenceClient.class).invoke(REQUEST));

                    assertThat(client(context, "local").retrier().isCoolingDown()).isTrue();
                    assertThat(context.getBean(LocalCooldownStore.class).remaining("account"))
                        .isGreaterThan(Duration.ofSeconds(20));
                });
        }

        @Test
        void readsTheRateLimitHeadersWhereAStoreIsOn() {
            runner.withPropertyValues("inference.retry.cooldown.store=local")
                .run((context) -> assertThat(client(context, "openai").retrier().readsRateLimits()).isTrue());
        }

        @Test
        void readsNoRateLimitHeadersWhenSwitchedOff() {
            runner.withPropertyValues("inference.retry.cooldown.store=local",
                    "inference.retry.cooldown.rate-limit-headers=false")
                .run((context) -> {
                    assertThat(client(context, "openai").retrier().readsRateLimits()).isFalse();
                    assertThat(client(context, "openai").retrier().cooldownStore()).isPresent();
                });
        }

        @Test
        void readsNoRateLimitHeadersWithoutAStore() {
            runner.run((context) -> assertThat(client(context, "openai").retrier().readsRateLimits()).isFalse());
        }

        @Test
        void coolsTheAccountForARateLimitedResponse() {
            runner.withPropertyValues("inference.retry.cooldown.store=local").run((context) -> {
                context.getBean(Script.class)
                    .failNext(new HttpStatusException(400, "bad", null, Duration.ofSeconds(30)));
                assertThatExceptionOfType(HttpStatusException.class)
                    .isThrownBy(() -> context.getBean("openai", InferenceClient.class).invoke(REQUEST));

                LocalCooldownStore store = context.getBean(LocalCooldownStore.class);
                assertThat(store.remaining("openai")).isGreaterThan(Duration.ofSeconds(20));
                assertThat(store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
            });
        }

        @Test
        void isNeverStaticAcrossContexts() {
            runner.withPropertyValues("inference.retry.cooldown.store=local").run((first) -> runner
                .withPropertyValues("inference.retry.cooldown.store=local")
                .run((second) -> assertThat(first.getBean(LocalCooldownStore.class))
                    .isNotSameAs(second.getBean(LocalCooldownStore.class))));
        }

        @Test
        void failsStartupForAKeyWithoutAStore() {
            runner.withPropertyValues("inference.retry.clients.openai.cooldown-key=account").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).hasMessage("InferenceClient bean 'openai': "
                        + "inference.retry.clients.openai.cooldown-key = account is invalid: needs a cool-down store: "
                        + "inference.retry.cooldown.store is not set");
            });
        }

        @Test
        void releasesTheCallsACooldownHeldAtItsEndUnlessASpreadIsSet() {
            runner.withPropertyValues("inference.retry.cooldown.store=local")
                .run((context) -> assertThat(client(context, "openai").retrier().cooldownReleaseSpread()).isZero());
        }

        @Test
        void spreadsTheReleaseOfTheCallsACooldownHeldOverTheSpreadSet() {
            runner.withPropertyValues("inference.retry.cooldown.store=local", "inference.retry.cooldown.release-spread=750ms")
                .run((context) -> assertThat(client(context, "local").retrier().cooldownReleaseSpread())
                    .isEqualTo(Duration.ofMillis(750)));
        }

        @Test
        void failsStartupForASpreadWithoutAStore() {
            runner.withPropertyValues("inference.retry.cooldown.release-spread=1s").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).hasMessage("InferenceClient bean 'openai': "
                        + "inference.retry.cooldown.release-spread = PT1S is invalid: needs a cool-down store: "
                        + "inference.retry.cooldown.store is not set");
            });
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "-1ms", "301s" })
        void failsStartupForASpreadThatIsNegativeOrLongerThanFiveMinutes(String spread) {
            runner.withPropertyValues("inference.retry.cooldown.store=local", "inference.retry.cooldown.release-spread=" + spread)
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context)).isInstanceOfSatisfying(InvalidRetryPropertyException.class, (ex) -> {
                        assertThat(ex.property()).isEqualTo("inference.retry.cooldown.release-spread");
                        assertThat(ex.rule()).isEqualTo("must be zero or positive, and at most PT5M, the longest a cool-down lasts");
                    });
                });
        }

        @Test
        void failsStartupForRedisWithoutSpringDataRedis() {
            runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withPropertyValues("inference.retry.cooldown.store=redis")
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context)).isInstanceOfSatisfying(RetryStoreUnavailableException.class,
                            (ex) -> assertThat(ex.action()).contains("spring-boot-starter-data-redis"));
                });
        }

        @Test
        void failsStartupForRedisWithoutTheRedisStoresModuleNamingIt() {
            runner.withPropertyValues("inference.retry.cooldown.store=redis").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).isInstanceOfSatisfying(RetryStoreUnavailableException.class, (ex) -> {
                    assertThat(ex).hasMessage("inference.retry.cooldown.store = redis is invalid: needs the module "
                            + "dev.inference:retry-cooldown-redis, which is not on the class path");
                    assertThat(ex.action()).contains("retry-spring-boot-starter").contains("store=local");
                });
            });
        }
    }
}
