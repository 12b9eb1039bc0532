package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link Retrier#refresh}: a retrier takes another's settings while its holders keep it, and each step
 * of a call reads the settings in force as it begins. Waits are virtual: the sleeper records nothing
 * and may run one action, so that a refresh happens while a call waits.
 */
class RetrierRefreshTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    private static final NetworkException RESET = new NetworkException("connection reset", null);

    private final AtomicReference<@Nullable Runnable> onWait = new AtomicReference<>();

    private final Sleeper sleeper = (delay, context) -> {
        Runnable action = this.onWait.getAndSet(null);
        if (action != null) {
            action.run();
        }
    };

    private Retrier.Builder retrier(int maxAttempts) {
        return Retrier.builder(new Policy(0, Duration.ofMillis(10), maxAttempts, Duration.ofMillis(10)))
            .name("openai")
            .sleeper(this.sleeper);
    }

    /** Fails more often than any test's calls attempt. */
    private static ScriptedClient failingAlways() {
        return ScriptedClient.script().thenFail(RESET, RESET, RESET, RESET, RESET, RESET, RESET, RESET, RESET, RESET);
    }

    @Nested
    class Settings {

        @Test
        void areThoseOfTheRetrierGivenForTheNextCall() {
            Retrier retrier = retrier(2).build();
            ScriptedClient inner = failingAlways();
            RetryClient client = RetryClient.of(inner, retrier);

            retrier.refresh(retrier(4).timeouts(Timeouts.none().withAttempt(Duration.ofSeconds(5))).build());

            assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> client.invoke(REQUEST))
                .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(4));
            assertThat(client.policy().maxAttempts()).isEqualTo(4);
            assertThat(retrier.timeouts().attempt()).contains(Duration.ofSeconds(5));
        }

        @Test
        void applyToTheNextDecisionOfACallThatWaits() {
            Retrier retrier = retrier(2).build();
            RetryClient client = RetryClient.of(failingAlways(), retrier);
            this.onWaitDo(() -> retrier.refresh(retrier(5).build()));

            assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> client.invoke(REQUEST))
                .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(5));
        }

        @Test
        void countTheAttemptsAlreadyMadeAgainstTheNewMaxAttempts() {
            Retrier retrier = retrier(5).build();
            RetryClient client = RetryClient.of(failingAlways(), retrier);
            this.onWaitDo(() -> this.onWaitDo(() -> retrier.refresh(retrier(2).build())));

            // Lowered during the wait after attempt 2: attempt 3 is made, and is the last.
            assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> client.invoke(REQUEST))
                .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(3));
        }

        @Test
        void stayTheCopyTakenWhenTheGivenRetrierIsRefreshedLater() {
            Retrier retrier = retrier(2).build();
            Retrier next = retrier(4).build();
            retrier.refresh(next);

            next.refresh(retrier(7).build());

            assertThat(retrier.policy().maxAttempts()).isEqualTo(4);
        }

        @Test
        void neverMixInOneDecisionWhenTheFirstRefreshComesInTheMiddleOfIt() {
            AtomicReference<@Nullable Retrier> built = new AtomicReference<>();
            // The classifier runs within the decision about attempt 1, after its step read the settings.
            Retrier retrier = retrier(1).classifier((failure) -> {
                Retrier self = built.getAndSet(null);
                if (self != null) {
                    self.refresh(retrier(3).build());
                }
                return Retrier.FailureClassifier.STANDARD.classify(failure);
            }).build();
            built.set(retrier);

            // Decided whole under maxAttempts 1, as the step read it: no retry.
            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> RetryClient.of(failingAlways(), retrier).invoke(REQUEST))
                .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(1));
            assertThat(retrier.policy().maxAttempts()).isEqualTo(3);
        }

        @Test
        void mustBeOfARetrierOfTheSameName() {
            Retrier retrier = retrier(2).build();

            assertThatIllegalArgumentException().isThrownBy(() -> retrier.refresh(retrier(4).name("other").build()))
                .withMessage("Retrier 'openai' cannot adopt the settings of retrier 'other': the name is the client's, "
                        + "and stays");
        }

        private void onWaitDo(Runnable action) {
            RetrierRefreshTests.this.onWait.set(action);
        }
    }

    @Nested
    class SwitchedOff {

        @Test
        void makesOneAttemptAndThrowsItsFailureAsItIs() {
            ScriptedClient inner = failingAlways();
            RetryClient client = RetryClient.of(inner, retrier(3).enabled(false).build());

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST)).isSameAs(RESET);
            assertThat(inner.attempts()).isEqualTo(1);
            assertThat(client.retrier().isEnabled()).isFalse();
        }

        @Test
        void endsACallInProgressAtItsNextFailureWithThatFailure() {
            Retrier retrier = retrier(5).build();
            ScriptedClient inner = failingAlways();
            RetryClient client = RetryClient.of(inner, retrier);
            RetrierRefreshTests.this.onWait.set(() -> retrier.refresh(retrier(5).enabled(false).build()));

            assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> client.invoke(REQUEST)).isSameAs(RESET);
            assertThat(inner.attempts()).isEqualTo(2);
        }

        @Test
        void retriesAgainOnceSwitchedBackOn() {
            Retrier retrier = retrier(3).enabled(false).build();
            RetryClient client = RetryClient.of(failingAlways(), retrier);

            retrier.refresh(retrier(3).build());

            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> client.invoke(REQUEST, CallContext.background()))
                .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(3));
        }
    }
}
