package dev.inference.retry.springai.exchange;

import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RetryTimerTests {

    private final RetryTimer timer = new RetryTimer();

    private final List<String> happened = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeTimer() {
        this.timer.close();
    }

    @Nested
    class Waits {

        @Test
        void fireOnADaemonTimerThreadOnceTheirDelayHasPassed() {
            long start = System.nanoTime();
            timer.schedule(Duration.ofMillis(20), recording("a"));

            awaitTrue(() -> !happened.isEmpty());

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(20));
            assertThat(happened).singleElement().asString().matches("fired a on inference-retry-timer-\\d+");
            assertThat(timer.pendingWaits()).isZero();
        }

        @Test
        void areWithdrawnWhenCancelled() {
            RetryTimer.Scheduled scheduled = timer.schedule(Duration.ofMinutes(5), recording("a"));
            assertThat(timer.pendingWaits()).isOne();

            scheduled.cancel();

            assertThat(timer.pendingWaits()).isZero();
            assertThat(happened).isEmpty();
        }

        @Test
        void fireAtOnceForADelayThatIsNotPositive() {
            timer.schedule(Duration.ofSeconds(-1), recording("a"));

            awaitTrue(() -> !happened.isEmpty());
        }
    }

    @Nested
    class Closing {

        @Test
        void abandonsEveryPendingWait() {
            timer.schedule(Duration.ofMinutes(5), recording("a"));
            timer.schedule(Duration.ofMinutes(5), recording("b"));

            timer.close();

            assertThat(happened).containsExactlyInAnyOrder("abandoned a", "abandoned b");
            assertThat(timer.pendingWaits()).isZero();
        }

        @Test
        void abandonsAWaitScheduledAfterwardsAtOnce() {
            timer.close();

            timer.schedule(Duration.ofMillis(1), recording("a"));

            assertThat(happened).containsExactly("abandoned a");
        }

        @Test
        void leavesAWaitThatFiredAlone() {
            timer.schedule(Duration.ZERO, recording("a"));
            awaitTrue(() -> !happened.isEmpty());

            timer.close();

            assertThat(happened).hasSize(1).allSatisfy((event) -> assertThat(event).startsWith("fired a"));
        }
    }

    private RetryTimer.Timeout recording(String name) {
        return new RetryTimer.Timeout() {

            @Override
            public void fire() {
                happened.add("fired " + name + " on " + Thread.currentThread().getName()
                        + (Thread.currentThread().isDaemon() ? "" : " (not a daemon)"));
            }

            @Override
            public void abandon() {
                happened.add("abandoned " + name);
            }
        };
    }
}
