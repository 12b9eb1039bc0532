package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.failure.NetworkException;
import dev.inference.fixtures.CapturedLog;
import dev.inference.fixtures.RecordingListener.CooldownSet;
import dev.inference.fixtures.RecordingListener.Exhausted;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownSetEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ContainedListenerTests {

    private final NetworkException reset = new NetworkException("connection reset", null);

    private final AttemptEvent event = new AttemptEvent("chat", Operation.INVOKE, 1, this.reset, true);

    private final ExhaustedException exhausted = new ExhaustedException(1, this.reset);

    private final RecordingListener recording = new RecordingListener();

    @RegisterExtension
    final CapturedLog log = CapturedLog.of(RetryClient.class);

    @Test
    void tellsEveryListenerDespiteAnEarlierOneThrowing() {
        ContainedListener contained = new ContainedListener(List.of(new Throwing(), this.recording));
        contained.attemptFinished(this.event);
        contained.retryScheduled(this.event, Duration.ofSeconds(1));
        contained.exhausted(this.event, this.exhausted);
        assertThat(this.recording.calls()).containsExactly(new Finished(this.event),
                new Scheduled(this.event, Duration.ofSeconds(1)), new Exhausted(this.event, this.exhausted));
    }

    @Test
    void logsEachContainedExceptionAsAWarningNamingTheListenerMethodAttemptAndClient() {
        Throwing throwing = new Throwing();
        ContainedListener contained = new ContainedListener(List.of(throwing, this.recording));
        contained.attemptFinished(this.event);
        contained.retryScheduled(this.event, Duration.ofSeconds(1));
        contained.exhausted(this.event, this.exhausted);
        assertThat(this.log.records()).extracting(LogRecord::getLevel).containsOnly(Level.WARNING);
        assertThat(this.log.records()).extracting(LogRecord::getMessage).containsExactly(
                "RetryListener Throwing threw from attemptFinished for attempt 1 of client 'chat'; the call goes on",
                "RetryListener Throwing threw from retryScheduled for attempt 1 of client 'chat'; the call goes on",
                "RetryListener Throwing threw from exhausted for attempt 1 of client 'chat'; the call goes on");
        assertThat(this.log.records()).extracting((record) -> record.getThrown().getMessage()).containsExactly(
                "attemptFinished is broken", "retryScheduled is broken", "exhausted is broken");
    }

    @Test
    void containsAListenerThatThrowsWhenTold() {
        CooldownEvent delayed = new CooldownEvent("chat", Operation.INVOKE, 2, "openai", Duration.ofSeconds(3));
        ContainedListener contained = new ContainedListener(List.of(new Throwing(), this.recording));

        contained.attemptDelayed(delayed);

        assertThat(this.recording.calls()).containsExactly(new RecordingListener.Delayed(delayed));
        assertThat(this.log.records()).extracting(LogRecord::getMessage).containsExactly(
                "RetryListener Throwing threw from attemptDelayed for attempt 2 of client 'chat'; the call goes on");
    }

    @Test
    void logsNothingWhenNoListenerThrows() {
        ContainedListener contained = new ContainedListener(List.of(this.recording));
        contained.attemptFinished(this.event);
        contained.retryScheduled(this.event, Duration.ofSeconds(1));
        contained.exhausted(this.event, this.exhausted);
        assertThat(this.log.records()).isEmpty();
    }

    @Test
    void describesItselfByItsListeners() {
        assertThat(new ContainedListener(List.of(new Throwing(), new Throwing()))).hasToString("[Throwing, Throwing]");
    }

    @Test
    void letsAnErrorPropagateAndStopsThere() {
        AssertionError error = new AssertionError("listener failed hard");
        RetryListener failing = new RetryListener() {
            @Override
            public void attemptFinished(AttemptEvent event) {
                throw error;
            }
        };
        ContainedListener contained = new ContainedListener(List.of(failing, this.recording));
        assertThat(catchThrowable(() -> contained.attemptFinished(this.event))).isSameAs(error);
        assertThat(this.recording.calls()).isEmpty();
    }

    @Nested
    class WithOneListener {

        @Test
        void tellsItOfEveryEvent() {
            ContainedListener contained = new ContainedListener(List.of(recording));
            contained.attemptFinished(event);
            contained.retryScheduled(event, Duration.ofSeconds(1));
            contained.exhausted(event, exhausted);
            assertThat(recording.calls()).containsExactly(new Finished(event), new Scheduled(event, Duration.ofSeconds(1)),
                    new Exhausted(event, exhausted));
        }

        @Test
        void containsAndLogsEveryRuntimeExceptionItThrows() {
            ContainedListener contained = new ContainedListener(List.of(new Throwing()));
            contained.attemptFinished(event);
            contained.retryScheduled(event, Duration.ofSeconds(1));
            contained.exhausted(event, exhausted);
            assertThat(log.records()).extracting((record) -> record.getThrown().getMessage()).containsExactly(
                    "attemptFinished is broken", "retryScheduled is broken", "exhausted is broken");
        }

        @Test
        void letsAnErrorItThrowsPropagate() {
            AssertionError error = new AssertionError("listener failed hard");
            ContainedListener contained = new ContainedListener(List.of(new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw error;
                }
            }));
            assertThat(catchThrowable(() -> contained.attemptFinished(event))).isSameAs(error);
        }

        @Test
        void describesItselfByIt() {
            assertThat(new ContainedListener(List.of(new Throwing()))).hasToString("[Throwing]");
        }
    }

    @Test
    void containsAndLogsAListenerThatThrowsWhenToldOfACooldownSet() {
        CooldownSetEvent set = new CooldownSetEvent("chat", "openai", Duration.ofSeconds(1), CooldownReason.RATE_LIMIT);
        ContainedListener contained = new ContainedListener(List.of(new Throwing(), this.recording));

        contained.cooldownSet(set);

        assertThat(this.recording.calls()).containsExactly(new CooldownSet(set));
        assertThat(this.log.records()).extracting(LogRecord::getMessage).containsExactly(
                "RetryListener Throwing threw from cooldownSet for key 'openai' of client 'chat'; the call goes on");
    }

    @Test
    void keepsItsListenersWhenTheGivenListChangesAfterwards() {
        List<RetryListener> given = new ArrayList<>(List.of(this.recording));
        ContainedListener contained = new ContainedListener(given);
        given.set(0, new Throwing());
        given.add(new Throwing());
        contained.attemptFinished(this.event);
        assertThat(this.recording.calls()).containsExactly(new Finished(this.event));
        assertThat(this.log.records()).isEmpty();
    }

    /** A listener that throws from every method. */
    private static final class Throwing implements RetryListener {

        @Override
        public void attemptFinished(AttemptEvent event) {
            throw new IllegalStateException("attemptFinished is broken");
        }

        @Override
        public void retryScheduled(AttemptEvent failed, Duration delay) {
            throw new IllegalStateException("retryScheduled is broken");
        }

        @Override
        public void exhausted(AttemptEvent last, ExhaustedException exception) {
            throw new IllegalStateException("exhausted is broken");
        }

        @Override
        public void attemptDelayed(CooldownEvent event) {
            throw new IllegalStateException("attemptDelayed is broken");
        }

        @Override
        public void cooldownSet(CooldownSetEvent event) {
            throw new IllegalStateException("cooldownSet is broken");
        }

        @Override
        public String toString() {
            return "Throwing";
        }
    }
}
