package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.client.CallContext;
import dev.inference.fixtures.RecordingListener.CooldownSet;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownSetEvent;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetrierTests {

    private static final Policy POLICY = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    @Test
    void isNamedDefaultUnlessNamed() {
        assertThat(Retrier.builder(POLICY).build().name()).isEqualTo("default");
    }

    @Test
    void keepsItsNameAndPolicy() {
        Retrier retrier = Retrier.builder(POLICY).name("chat").build();

        assertThat(retrier.name()).isEqualTo("chat");
        assertThat(retrier.policy()).isSameAs(POLICY);
        assertThat(retrier).hasToString("Retrier[name=chat, policy=" + POLICY + "]");
    }

    @Test
    void refusesABlankName() {
        assertThatIllegalArgumentException().isThrownBy(() -> Retrier.builder(POLICY).name(" "))
            .withMessage("name must not be blank");
    }

    @Test
    void refusesAMissingPolicy() {
        assertThatNullPointerException().isThrownBy(() -> Retrier.builder(null)).withMessage("policy must not be null");
    }

    @Test
    void startsEachCallAtItsFirstAttempt() {
        RetryExecution execution = Retrier.builder(POLICY).name("chat").build().start(Operation.STREAM,
                CallContext.background());

        assertThat(execution.attempt()).isEqualTo(1);
        assertThat(execution).hasToString("RetryExecution[client=chat, operation=STREAM, attempt=1]");
    }

    @Test
    void refusesToStartACallWithoutAContext() {
        Retrier retrier = Retrier.builder(POLICY).build();

        assertThatNullPointerException().isThrownBy(() -> retrier.start(Operation.INVOKE, null))
            .withMessage("context must not be null");
    }

    @Test
    void keepsNoListenerAddedAfterItWasBuilt() {
        RecordingListener late = new RecordingListener();
        Retrier.Builder builder = Retrier.builder(POLICY);
        Retrier retrier = builder.build();
        builder.listener(late);

        retrier.start(Operation.INVOKE, CallContext.background()).succeeded();

        assertThat(late.calls()).isEmpty();
    }

    @Test
    void isTheRetrierOfTheClientItWasBuiltFor() {
        RetryClient client = RetryClient.builder(ScriptedClient.script(), POLICY).name("chat").build();

        assertThat(client.retrier().name()).isEqualTo("chat");
        assertThat(client.retrier().policy()).isSameAs(POLICY);
    }

    @Test
    void hasNoBudgetStoreOrSignalUnlessGiven() {
        Retrier retrier = Retrier.builder(POLICY).name("chat").build();

        assertThat(retrier.budget()).isEmpty();
        assertThat(retrier.cooldownStore()).isEmpty();
        assertThat(retrier.shutdownSignal()).isEmpty();
        assertThat(retrier.isCoolingDown()).isFalse();
    }

    @Test
    void keepsTheBudgetStoreAndSignalItIsGiven() {
        RetryBudget budget = RetryBudget.of(10, BigDecimal.ONE);
        LocalCooldownStore store = LocalCooldownStore.create();
        ShutdownSignal signal = ShutdownSignal.create();

        Retrier retrier = Retrier.builder(POLICY).budget(budget).cooldown(store, "account").shutdownSignal(signal).build();

        assertThat(retrier.budget()).containsSame(budget);
        assertThat(retrier.cooldownStore()).containsSame(store);
        assertThat(retrier.cooldownKey()).isEqualTo("account");
        assertThat(retrier.shutdownSignal()).containsSame(signal);
    }

    @Test
    void waitsInRealTimeUnlessGivenASleeper() {
        assertThat(Retrier.builder(POLICY).build().sleeper()).isSameAs(Sleeper.system());
    }

    @Test
    void keepsTheSleeperItIsGiven() {
        Sleeper sleeper = (delay, context) -> {
        };

        assertThat(Retrier.builder(POLICY).sleeper(sleeper).build().sleeper()).isSameAs(sleeper);
    }

    @Test
    void refusesANullSleeper() {
        assertThatNullPointerException().isThrownBy(() -> Retrier.builder(POLICY).sleeper(null))
            .withMessage("sleeper must not be null");
    }

    @Test
    void coolsDownUnderItsNameWhenGivenNoKey() {
        Retrier retrier = Retrier.builder(POLICY).name("chat").cooldown(LocalCooldownStore.create(), null).build();

        assertThat(retrier.cooldownKey()).isEqualTo("chat");
    }

    @Test
    void isCoolingDownOnlyWhileItsKeyIs() {
        LocalCooldownStore store = LocalCooldownStore.create();
        Retrier retrier = Retrier.builder(POLICY).cooldown(store, "account").build();
        store.coolDown("other", Duration.ofMinutes(1));
        assertThat(retrier.isCoolingDown()).isFalse();

        store.coolDown("account", Duration.ofMinutes(1));

        assertThat(retrier.isCoolingDown()).isTrue();
    }

    @Test
    void refusesABlankCooldownKey() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> Retrier.builder(POLICY).cooldown(LocalCooldownStore.create(), " "))
            .withMessage("key must not be blank");
    }

    @Test
    void returnsTheTokensOfAFirstAttemptThatSucceeded() {
        RetryBudget budget = RetryBudget.of(10, new BigDecimal("0.5"));
        budget.failedRetryably();
        Retrier retrier = Retrier.builder(POLICY).budget(budget).build();

        retrier.start(Operation.INVOKE, CallContext.background()).succeeded();

        assertThat(budget.tokens()).isEqualByComparingTo("9.5");
    }

    @Nested
    class RateLimited {

        private final AtomicLong nanos = new AtomicLong();

        private final LocalCooldownStore store = LocalCooldownStore.withClock(this.nanos::get);

        private final RecordingListener listener = new RecordingListener();

        private Retrier.Builder cooled() {
            return Retrier.builder(POLICY).name("chat").listener(this.listener).cooldown(this.store, "openai");
        }

        @Test
        void coolsTheKeyUntilTheReset() {
            Retrier retrier = cooled().build();

            retrier.rateLimited(Duration.ofMillis(1500));

            assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofMillis(1500));
            assertThat(this.store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
        }

        @Test
        void tellsTheListenersOfTheCooldownItSet() {
            cooled().build().rateLimited(Duration.ofSeconds(2));

            assertThat(this.listener.calls()).containsExactly(new CooldownSet(
                    new CooldownSetEvent("chat", "openai", Duration.ofSeconds(2), CooldownReason.RATE_LIMIT)));
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource({ "PT5M,PT5M", "PT5M0.000000001S,PT5M", "PT1H,PT5M", "PT4M59.999999999S,PT4M59.999999999S" })
        void capsTheCooldownAtFiveMinutes(Duration reset, Duration cooled) {
            cooled().build().rateLimited(reset);

            assertThat(this.store.remaining("openai")).isEqualTo(cooled);
            assertThat(this.listener.calls()).containsExactly(new CooldownSet(
                    new CooldownSetEvent("chat", "openai", cooled, CooldownReason.RATE_LIMIT)));
        }

        @Test
        void neverShortensALongerCooldown() {
            this.store.coolDown("openai", Duration.ofSeconds(20));

            cooled().build().rateLimited(Duration.ofSeconds(2));

            assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
            assertThat(this.store.reason("openai")).contains(CooldownReason.RETRY_AFTER);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "PT0S", "PT-1S" })
        void coolsNothingForAResetThatIsNotAhead(String reset) {
            cooled().build().rateLimited(Duration.parse(reset));

            assertThat(this.store.remaining("openai")).isZero();
            assertThat(this.listener.calls()).isEmpty();
        }

        @Test
        void coolsNothingWhenRateLimitsAreNotHonoured() {
            Retrier retrier = cooled().honourRateLimits(false).build();

            retrier.rateLimited(Duration.ofSeconds(2));

            assertThat(retrier.readsRateLimits()).isFalse();
            assertThat(this.store.remaining("openai")).isZero();
            assertThat(this.listener.calls()).isEmpty();
        }

        @Test
        void readsRateLimitsOnlyWithAStore() {
            assertThat(Retrier.builder(POLICY).build().readsRateLimits()).isFalse();
            assertThat(Retrier.builder(POLICY).honourRateLimits(true).build().readsRateLimits()).isFalse();
            assertThat(cooled().build().readsRateLimits()).isTrue();
        }

        @Test
        void doesNothingWithoutAStore() {
            Retrier retrier = Retrier.builder(POLICY).listener(this.listener).build();

            retrier.rateLimited(Duration.ofSeconds(2));

            assertThat(this.listener.calls()).isEmpty();
        }

        @Test
        void refusesANullReset() {
            assertThatNullPointerException().isThrownBy(() -> cooled().build().rateLimited(null))
                .withMessage("resetIn must not be null");
        }
    }
    @Nested
    class CooldownReleaseSpread {

        @Test
        void isZeroUnlessSet() {
            assertThat(Retrier.builder(POLICY).build().cooldownReleaseSpread()).isZero();
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "PT0S", "PT1S", "PT5M" })
        void keepsASpreadFromZeroToFiveMinutes(Duration spread) {
            assertThat(Retrier.builder(POLICY).cooldownReleaseSpread(spread).build().cooldownReleaseSpread())
                .isEqualTo(spread);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "PT-0.001S", "PT5M0.001S" })
        void refusesANegativeSpreadOrOneLongerThanFiveMinutes(Duration spread) {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> Retrier.builder(POLICY).cooldownReleaseSpread(spread))
                .satisfies((ex) -> {
                    assertThat(ex.field()).isEqualTo("cooldownReleaseSpread");
                    assertThat(ex.value()).contains(spread);
                    assertThat(ex.rule()).isEqualTo("must be zero or positive, and at most PT5M");
                });
        }
    }
}
