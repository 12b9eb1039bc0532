package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.client.CallContext;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

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

        retrier.firstAttemptSucceeded(Operation.INVOKE);

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

        retrier.firstAttemptSucceeded(Operation.INVOKE);

        assertThat(budget.tokens()).isEqualByComparingTo("9.5");
    }
}
