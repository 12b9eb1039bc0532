package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
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
            assertThat(happened).singleElement().asString().matches("fired a on inference-retry-timer");
            assertThat(timer.pendingWaits()).isZero();
        }

        @Test
        void areWithdrawnWhenCancelled() {
            WaitScheduler.Scheduled scheduled = timer.schedule(Duration.ofMinutes(5), recording("a"));
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
    class Timeouts {

        @Test
        void runOnTheTimerThreadOnceTheirDelayHasPassed() {
            timer.schedule(Duration.ofMillis(1), () -> happened.add("ran on " + Thread.currentThread().getName()));

            awaitTrue(() -> !happened.isEmpty());

            assertThat(happened).containsExactly("ran on inference-retry-timer");
        }

        @Test
        void areWithdrawnWhenTheirRegistrationIsClosed() {
            CallContext.Registration registration = timer.schedule(Duration.ofMinutes(5), () -> happened.add("ran"));

            registration.close();

            assertThat(timer.pendingWaits()).isZero();
            assertThat(happened).isEmpty();
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
        void runsEveryPendingTimeoutAtOnce() {
            timer.schedule(Duration.ofMinutes(5), () -> happened.add("ran"));

            timer.close();

            assertThat(happened).containsExactly("ran");
        }

        @Test
        void abandonsAWaitScheduledAfterwardsAtOnce() {
            timer.close();

            timer.schedule(Duration.ofMillis(1), recording("a"));

            assertThat(happened).containsExactly("abandoned a");
        }

        @Test
        void refusesATimeoutScheduledAfterwards() {
            timer.close();

            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> timer.schedule(Duration.ofMillis(1), () -> happened.add("ran")));
            assertThat(happened).isEmpty();
        }

        @Test
        void leavesAWaitThatFiredAlone() {
            timer.schedule(Duration.ZERO, recording("a"));
            awaitTrue(() -> !happened.isEmpty());

            timer.close();

            assertThat(happened).hasSize(1).allSatisfy((event) -> assertThat(event).startsWith("fired a"));
        }
    }

    private WaitScheduler.Wait recording(String name) {
        return new WaitScheduler.Wait() {

            @Override
            public void elapsed() {
                happened.add("fired " + name + " on " + Thread.currentThread().getName()
                        + (Thread.currentThread().isDaemon() ? "" : " (not a daemon)"));
            }

            @Override
            public void abandoned() {
                happened.add("abandoned " + name);
            }
        };
    }

    /** Polls until the condition holds, failing once ten seconds have passed without it. */
    private static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition met within 10 s").isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }
}
