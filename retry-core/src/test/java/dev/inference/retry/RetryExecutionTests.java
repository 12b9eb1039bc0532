package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedReader;
import dev.inference.fixtures.RecordingListener.Exhausted;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.retry.RetryExecution.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The decisions of one call, driven as a non-blocking caller drives them: no thread waits, the test
 * is the scheduler.
 */
class RetryExecutionTests {

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private static final NetworkException RESET = new NetworkException("connection reset", null);

    private final RecordingListener listener = new RecordingListener();

    private Retrier.Builder retrier() {
        return Retrier.builder(THREE_ATTEMPTS).name("chat").listener(this.listener).random(FixedRandom.noJitter());
    }

    private RetryExecution start(CallContext context) {
        return retrier().build().start(Operation.INVOKE, context);
    }

    private static AttemptEvent failed(int attempt, Throwable failure, boolean retryable) {
        return new AttemptEvent("chat", Operation.INVOKE, attempt, failure, retryable);
    }

    @Nested
    class Decisions {

        @Test
        void retriesATransientFailureAfterTheBackoffDelay() {
            Decision decision = start(CallContext.background()).failed(RESET);

            assertThat(decision.isRetry()).isTrue();
            assertThat(decision.delay()).isEqualTo(Duration.ofMillis(100));
        }

        @Test
        void givesUpWithAPermanentFailureAsItWasThrown() {
            HttpStatusException badRequest = new HttpStatusException(400, "bad request", null);

            Decision decision = start(CallContext.background()).failed(badRequest);

            assertThat(decision.isRetry()).isFalse();
            assertThat(decision.failure()).isSameAs(badRequest);
        }

        @Test
        void givesUpWithExhaustedAfterTheLastAttemptAllowed() {
            RetryExecution execution = start(CallContext.background());
            NetworkException second = new NetworkException("second", null);
            NetworkException third = new NetworkException("third", null);

            execution.failed(RESET);
            execution.beginNextAttempt();
            execution.failed(second);
            execution.beginNextAttempt();
            Decision decision = execution.failed(third);

            assertThat(decision.failure()).isInstanceOf(ExhaustedException.class).hasCause(third);
            assertThat(decision.failure().getSuppressed()).containsExactly(RESET, second);
            assertThat(execution.attempt()).isEqualTo(3);
        }

        @Test
        void honoursTheProvidersRetryAfterWhenLonger() {
            HttpStatusException throttled = new HttpStatusException(429, "slow down", Duration.ofSeconds(7));

            Decision decision = start(CallContext.background()).failed(throttled);

            assertThat(decision.delay()).isEqualTo(Duration.ofSeconds(7));
        }

        @Test
        void givesUpAtOnceWhenTheDeadlineWouldPassDuringTheWait() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(50));

            Decision decision = start(context).failed(RESET);

            assertThat(decision.failure()).isInstanceOf(DeadlineExceededException.class)
                .hasMessage("The call's deadline would pass during the PT0.1S wait before attempt 2");
            assertThat(decision.failure().getSuppressed()).containsExactly(RESET);
        }

        @Test
        void givesUpWithTheContextsFailureWhenTheCallerGaveUpDuringTheAttempt() {
            CallContext context = CallContext.cancellable();
            context.cancel();

            Decision decision = start(context).failed(RESET);

            assertThat(decision.failure()).isInstanceOf(CancellationException.class);
            assertThat(decision.failure().getSuppressed()).containsExactly(RESET);
        }

        @Test
        void classifiesAndThrowsTheCauseOfAHalfOpenStreamAfterClosingItsReader() {
            ScriptedReader reader = ScriptedReader.completing();
            HttpStatusException badRequest = new HttpStatusException(400, "bad request", null);

            Decision decision = start(CallContext.background()).failed(new HalfOpenStreamException(reader, badRequest));

            assertThat(decision.failure()).isSameAs(badRequest);
            assertThat(reader.closes()).isEqualTo(1);
        }
    }

    @Nested
    class Waits {

        @Test
        void beginsTheNextAttemptWhenTheContextIsStillLive() {
            RetryExecution execution = start(CallContext.background());
            execution.failed(RESET);

            execution.beginNextAttempt();

            assertThat(execution.attempt()).isEqualTo(2);
        }

        @Test
        void endsTheCallWhenTheContextWasCancelledDuringTheWait() {
            CallContext context = CallContext.cancellable();
            RetryExecution execution = start(context);
            execution.failed(RESET);
            context.cancel();

            assertThatExceptionOfType(CancellationException.class).isThrownBy(execution::beginNextAttempt)
                .satisfies((thrown) -> assertThat(thrown.getSuppressed()).containsExactly(RESET));
        }

        @Test
        void turnsAnInterruptedWaitIntoACancellationCausedByIt() {
            RetryExecution execution = start(CallContext.background());
            execution.failed(RESET);
            InterruptedException interrupted = new InterruptedException();

            CancellationException cancelled = execution.interrupted(interrupted);

            assertThat(cancelled).hasMessage("Interrupted during the PT0.1S wait before attempt 2")
                .hasCause(interrupted);
            assertThat(cancelled.getSuppressed()).containsExactly(RESET);
        }
    }

    @Nested
    class Order {

        @Test
        void refusesASecondFailureBeforeTheNextAttemptBegins() {
            RetryExecution execution = start(CallContext.background());
            execution.failed(RESET);

            assertThatIllegalStateException().isThrownBy(() -> execution.failed(RESET))
                .withMessageContaining("beginNextAttempt()");
        }

        @Test
        void refusesToBeginAnAttemptWithoutARetryDecision() {
            RetryExecution execution = start(CallContext.background());

            assertThatIllegalStateException().isThrownBy(execution::beginNextAttempt)
                .withMessage("This call is not waiting to retry: the last decision was not a retry");
        }

        @Test
        void refusesToBeginAnAttemptAfterGivingUp() {
            RetryExecution execution = start(CallContext.background());
            execution.failed(new HttpStatusException(401, "unauthorized", null));

            assertThatIllegalStateException().isThrownBy(execution::beginNextAttempt);
        }

        @Test
        void refusesASuccessAfterTheCallEnded() {
            RetryExecution execution = start(CallContext.background());
            execution.succeeded();

            assertThatIllegalStateException().isThrownBy(execution::succeeded);
        }

        @Test
        void refusesToLookForACooldownWhileWaitingToRetry() {
            RetryExecution execution = start(CallContext.background());
            execution.failed(RESET);

            assertThatIllegalStateException().isThrownBy(execution::cooldownBeforeAttempt);
        }

        @Test
        void refusesToEndACooldownWaitAfterTheCallEnded() {
            RetryExecution execution = start(CallContext.background());
            execution.succeeded();

            assertThatIllegalStateException().isThrownBy(execution::endCooldownWait);
        }

        @Test
        void refusesAnInterruptAfterTheCallEnded() {
            RetryExecution execution = start(CallContext.background());
            execution.succeeded();

            assertThatIllegalStateException().isThrownBy(() -> execution.interrupted(new InterruptedException()))
                .withMessage("This call has ended: it was not waiting");
        }

        @Test
        void describesEachDecision() {
            assertThat(start(CallContext.background()).failed(RESET)).hasToString("Decision[retry after PT0.1S]");
            assertThat(start(CallContext.background()).failed(new HttpStatusException(400, "bad", null)))
                .hasToString("Decision[give up with dev.inference.failure.HttpStatusException: bad]");
        }

        @Test
        void refusesTheDelayOfADecisionToGiveUp() {
            Decision decision = start(CallContext.background()).failed(new HttpStatusException(400, "bad", null));

            assertThatIllegalStateException().isThrownBy(decision::delay)
                .withMessage("The decision is to give up, not to retry");
        }

        @Test
        void refusesTheFailureOfADecisionToRetry() {
            Decision decision = start(CallContext.background()).failed(RESET);

            assertThatIllegalStateException().isThrownBy(decision::failure)
                .withMessage("The decision is to retry, not to give up");
        }
    }

    @Nested
    class Listeners {

        @Test
        void hearEveryAttemptEveryWaitAndTheExhaustion() {
            RetryExecution execution = start(CallContext.background());

            execution.failed(RESET);
            execution.beginNextAttempt();
            Decision last = execution.failed(RESET);

            RetryExecution retried = start(CallContext.background());
            retried.failed(RESET);
            retried.beginNextAttempt();
            retried.succeeded();

            assertThat(RetryExecutionTests.this.listener.calls()).containsExactly(
                    new Finished(failed(1, RESET, true)), new Scheduled(failed(1, RESET, true), Duration.ofMillis(100)),
                    new Finished(failed(2, RESET, true)), new Scheduled(failed(2, RESET, true), Duration.ofMillis(200)),
                    new Finished(new AttemptEvent("chat", Operation.INVOKE, 1, RESET, true)),
                    new Scheduled(failed(1, RESET, true), Duration.ofMillis(100)),
                    new Finished(new AttemptEvent("chat", Operation.INVOKE, 2, null, false)));
            assertThat(last.isRetry()).isTrue();
        }

        @Test
        void hearTheExhaustionOfTheLastAttempt() {
            Retrier oneAttempt = Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
                .name("chat")
                .listener(RetryExecutionTests.this.listener)
                .build();

            Decision decision = oneAttempt.start(Operation.INVOKE, CallContext.background()).failed(RESET);

            assertThat(RetryExecutionTests.this.listener.calls()).containsExactly(new Finished(failed(1, RESET, true)),
                    new Exhausted(failed(1, RESET, true), (ExhaustedException) decision.failure()));
        }

        @Test
        void reportTheSuccessOfAFirstAttemptWithTheSameEventEveryCall() {
            Retrier retrier = retrier().build();

            retrier.start(Operation.STREAM, CallContext.background()).succeeded();
            retrier.start(Operation.STREAM, CallContext.background()).succeeded();

            assertThat(RetryExecutionTests.this.listener.calls()).hasSize(2)
                .allSatisfy((call) -> assertThat(call).isEqualTo(
                        new Finished(new AttemptEvent("chat", Operation.STREAM, 1, null, false))));
            Finished first = (Finished) RetryExecutionTests.this.listener.calls().get(0);
            Finished second = (Finished) RetryExecutionTests.this.listener.calls().get(1);
            assertThat(first.event()).isSameAs(second.event());
        }
    }

    @Nested
    class Steps {

        @Test
        void consultsTheClassifierItIsGiven() {
            IllegalStateException untyped = new IllegalStateException("odd");
            RetryExecution execution = retrier()
                .classifier((failure) -> Classification.of(new NetworkException("treated as transient", failure)))
                .build()
                .start(Operation.INVOKE, CallContext.background());

            assertThat(execution.failed(untyped).isRetry()).isTrue();
        }

        @Test
        void consultsTheScheduleItIsGiven() {
            RetryExecution execution = retrier().schedule((failedAttempt, failure) -> Duration.ofSeconds(failedAttempt))
                .build()
                .start(Operation.INVOKE, CallContext.background());

            assertThat(execution.failed(RESET).delay()).isEqualTo(Duration.ofSeconds(1));
        }
    }
    @Nested
    class Abandonment {

        private final List<String> observed = new ArrayList<>();

        private RetryExecution observedExecution() {
            return retrier().observer((client, operation, attempt) -> {
                this.observed.add("started " + attempt);
                return (outcome, retryDelay) -> this.observed.add("ended " + outcome.attempt() + " "
                        + outcome.failure() + " retryable=" + outcome.retryable() + " retry in " + retryDelay);
            }).build().start(Operation.INVOKE, CallContext.background());
        }

        @Test
        void endsTheObservationOfTheAttemptInFlightWithTheCauseAsAFinalFailure() {
            RetryExecution execution = observedExecution();
            execution.cooldownBeforeAttempt();
            CancellationException cancelled = new CancellationException("subscription cancelled");

            execution.abandoned(cancelled);

            assertThat(this.observed).containsExactly("started 1",
                    "ended 1 " + cancelled + " retryable=false retry in null");
        }

        @Test
        void tellsTheListenersNothing() {
            RetryExecution execution = observedExecution();
            execution.cooldownBeforeAttempt();

            execution.abandoned(new AssertionError("the attempt broke"));

            assertThat(RetryExecutionTests.this.listener.calls()).isEmpty();
        }

        @Test
        void endsTheObservationOnceWhenTheAttemptsEndIsToldToo() {
            RetryExecution execution = observedExecution();
            execution.cooldownBeforeAttempt();

            execution.abandoned(new CancellationException("first"));
            execution.abandoned(new CancellationException("again"));
            execution.failed(RESET);

            assertThat(this.observed).hasSize(2).first().isEqualTo("started 1");
        }

        @Test
        void endsAtOnceAnObservationStartedAfterIt() {
            RetryExecution execution = observedExecution();
            CancellationException cancelled = new CancellationException("cancelled before the attempt began");

            execution.abandoned(cancelled);
            execution.cooldownBeforeAttempt();

            assertThat(this.observed).containsExactly("started 1",
                    "ended 1 " + cancelled + " retryable=false retry in null");
        }

        @Test
        void endsNothingAfterTheAttemptsObservationEnded() {
            RetryExecution execution = observedExecution();
            execution.cooldownBeforeAttempt();
            execution.succeeded();

            execution.abandoned(new CancellationException("cancelled after the success"));

            assertThat(this.observed).hasSize(2).last().asString().startsWith("ended 1 null");
        }

        @Test
        void refusesANullCause() {
            assertThatNullPointerException().isThrownBy(() -> start(CallContext.background()).abandoned(null))
                .withMessage("cause must not be null");
        }
    }
}
