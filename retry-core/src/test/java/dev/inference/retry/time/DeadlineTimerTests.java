package dev.inference.retry.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DeadlineTimerTests {

    private final VirtualAlarm alarm = new VirtualAlarm();

    private final DeadlineTimer timer = new DeadlineTimer(this.alarm, this.alarm::now);

    private final List<String> happened = new ArrayList<>();

    @Nested
    class Timeouts {

        @Test
        void runOnceTheirDelayHasPassed() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));

            alarm.advance(Duration.ofSeconds(30).minusNanos(1));
            assertThat(happened).isEmpty();
            alarm.advance(Duration.ofNanos(1));

            assertThat(happened).containsExactly("a");
            assertThat(timer.pending()).isZero();
        }

        @Test
        void runInTheOrderOfTheirDeadlines() {
            timer.schedule(Duration.ofSeconds(3), () -> happened.add("c"));
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));
            timer.schedule(Duration.ofSeconds(2), () -> happened.add("b"));

            alarm.advance(Duration.ofSeconds(3));

            assertThat(happened).containsExactly("a", "b", "c");
        }

        @Test
        void neverRunOnceWithdrawn() {
            CallContext.Registration registration = timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            registration.close();
            alarm.advance(Duration.ofSeconds(2));

            assertThat(happened).isEmpty();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void runAsSoonAsPossibleForADelayThatIsNotPositive() {
            timer.schedule(Duration.ofSeconds(-1), () -> happened.add("a"));

            alarm.advance(Duration.ZERO);

            assertThat(happened).containsExactly("a");
        }

        @Test
        void stillRunAfterOneThatThrew() {
            timer.schedule(Duration.ofSeconds(1), () -> {
                throw new IllegalStateException("boom");
            });
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("b"));

            List<Throwable> reported = alarm.advanceReporting(Duration.ofSeconds(1));

            assertThat(happened).containsExactly("b");
            assertThat(reported).singleElement().satisfies((ex) -> assertThat(ex).hasMessage("boom"));
        }

        @Test
        void ofTheLongestDurationDoNotOverflowIntoThePast() {
            timer.schedule(Duration.ofSeconds(Long.MAX_VALUE), () -> happened.add("never"));
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            alarm.advance(Duration.ofDays(365));

            assertThat(happened).containsExactly("a");
            assertThat(timer.pending()).isOne();
        }
    }

    @Nested
    class WakeUps {

        @Test
        void areNotSetForADeadlineNoEarlierThanTheOneAwaited() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));
            alarm.advance(Duration.ofMillis(1));
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("b"));
            timer.schedule(Duration.ofSeconds(40), () -> happened.add("c"));

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(30));
        }

        @Test
        void areNotSetWhenADeadlineIsWithdrawn() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a")).close();
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("b")).close();

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(30));
            assertThat(alarm.pendingRings()).isOne();
        }

        @Test
        void areSetAgainForAnEarlierDeadlineReplacingTheLaterOne() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));
            timer.schedule(Duration.ofSeconds(5), () -> happened.add("b"));

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(5));
            assertThat(alarm.pendingRings()).isOne();
        }

        @Test
        void setTheNextOneWhenTheDeadlineAwaitedWasWithdrawn() {
            timer.schedule(Duration.ofSeconds(10), () -> happened.add("a")).close();
            timer.schedule(Duration.ofSeconds(20), () -> happened.add("b"));

            alarm.advance(Duration.ofSeconds(10));
            assertThat(happened).isEmpty();
            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(10));
            alarm.advance(Duration.ofSeconds(10));

            assertThat(happened).containsExactly("b");
        }

        @Test
        void areNoneOnceNothingIsPending() {
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            alarm.advance(Duration.ofSeconds(1));

            assertThat(alarm.pendingRings()).isZero();
        }
    }

    @Nested
    class Waits {

        @Test
        void areToldElapsedOnceTheirDelayHasPassed() {
            timer.schedule(Duration.ofSeconds(2), recording("a"));

            alarm.advance(Duration.ofSeconds(2));

            assertThat(happened).containsExactly("elapsed a");
        }

        @Test
        void areNeverToldOnceCancelled() {
            WaitScheduler.Scheduled scheduled = timer.schedule(Duration.ofSeconds(2), recording("a"));

            scheduled.cancel();
            alarm.advance(Duration.ofSeconds(2));

            assertThat(happened).isEmpty();
        }
    }

    @Nested
    class Closing {

        @Test
        void abandonsEveryPendingWaitAndRunsEveryPendingTimeout() {
            timer.schedule(Duration.ofSeconds(2), recording("a"));
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("timeout b"));

            timer.close();

            assertThat(happened).containsExactly("timeout b", "abandoned a");
            assertThat(timer.pending()).isZero();
            assertThat(alarm.isClosed()).isTrue();
        }

        @Test
        void abandonsAWaitScheduledAfterwardsAtOnce() {
            timer.close();

            timer.schedule(Duration.ofSeconds(1), recording("a"));

            assertThat(happened).containsExactly("abandoned a");
            assertThat(timer.pending()).isZero();
        }

        @Test
        void refusesATimeoutScheduledAfterwards() {
            timer.close();

            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> timer.schedule(Duration.ofSeconds(1), () -> happened.add("a")))
                .withMessage("The timer is closed");
            assertThat(happened).isEmpty();
        }

        @Test
        void isIdempotent() {
            timer.schedule(Duration.ofSeconds(1), recording("a"));

            timer.close();
            timer.close();

            assertThat(happened).containsExactly("abandoned a");
        }
    }

    @Nested
    class ItsOwnThread {

        @Test
        void startsWithTheFirstDeadlineAndRunsTheActionsAsADaemon() {
            DeadlineTimer real = new DeadlineTimer("deadline-timer-test");
            List<String> threads = new CopyOnWriteArrayList<>();
            try {
                assertThat(real.isStarted()).isFalse();

                real.schedule(Duration.ofMillis(1), () -> threads.add(Thread.currentThread().getName() + " "
                        + (Thread.currentThread().isDaemon() ? "daemon" : "user")));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (threads.isEmpty() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }

                assertThat(real.isStarted()).isTrue();
                assertThat(threads).containsExactly("deadline-timer-test daemon");
            }
            finally {
                real.close();
            }
        }

        @Test
        void runsEveryDeadlineThatIsNotWithdrawnExactlyOnceWhileThreadsScheduleAndWithdraw() throws Exception {
            DeadlineTimer real = new DeadlineTimer("deadline-timer-test");
            int threads = 4;
            int each = 2_000;
            AtomicIntegerArray runs = new AtomicIntegerArray(threads * each);
            ExecutorService callers = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> scheduled = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int first = t * each;
                    scheduled.add(callers.submit(() -> {
                        for (int i = first; i < first + each; i++) {
                            int index = i;
                            // Later and earlier deadlines mixed, so that wake-ups are both kept and replaced.
                            CallContext.Registration registration = real.schedule(
                                    Duration.ofNanos((index * 7919L) % 2_000_000), () -> runs.incrementAndGet(index));
                            if (index % 2 == 1) {
                                registration.close();
                            }
                        }
                    }));
                }
                for (Future<?> caller : scheduled) {
                    caller.get(10, TimeUnit.SECONDS);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (real.pending() > 0 && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }

                assertThat(real.pending()).isZero();
                for (int i = 0; i < runs.length(); i++) {
                    // A withdrawal may lose the race with a short deadline: then it ran, once.
                    assertThat(runs.get(i)).as("runs of deadline %d", i).isBetween((i % 2 == 0) ? 1 : 0, 1);
                }
            }
            finally {
                callers.shutdownNow();
                real.close();
            }
        }
    }

    private WaitScheduler.Wait recording(String name) {
        return new WaitScheduler.Wait() {

            @Override
            public void elapsed() {
                happened.add("elapsed " + name);
            }

            @Override
            public void abandoned() {
                happened.add("abandoned " + name);
            }
        };
    }

    /** An alarm in virtual time: rings when {@link #advance} carries its clock to them, on the test's thread. */
    private static final class VirtualAlarm implements DeadlineTimer.Alarm {

        private final List<Ring> rings = new ArrayList<>();

        private final List<Duration> setDelays = new ArrayList<>();

        private long now = 1_000;

        private boolean closed;

        long now() {
            return this.now;
        }

        @Override
        public DeadlineTimer.Alarm.Ring set(long delayNanos, Runnable wake) {
            if (this.closed) {
                throw new RejectedExecutionException("closed");
            }
            this.setDelays.add(Duration.ofNanos(delayNanos));
            Ring ring = new Ring(this.now + delayNanos, wake);
            this.rings.add(ring);
            return () -> this.rings.remove(ring);
        }

        void advance(Duration duration) {
            long end = this.now + duration.toNanos();
            for (;;) {
                Ring next = this.rings.stream().min(Comparator.comparingLong(Ring::at)).orElse(null);
                if (next == null || next.at() > end) {
                    break;
                }
                this.rings.remove(next);
                this.now = Math.max(this.now, next.at());
                next.wake().run();
            }
            this.now = end;
        }

        List<Throwable> advanceReporting(Duration duration) {
            Thread thread = Thread.currentThread();
            Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
            List<Throwable> reported = new ArrayList<>();
            thread.setUncaughtExceptionHandler((failed, ex) -> reported.add(ex));
            try {
                advance(duration);
            }
            finally {
                thread.setUncaughtExceptionHandler(previous);
            }
            return reported;
        }

        List<Duration> setDelays() {
            return this.setDelays;
        }

        int pendingRings() {
            return this.rings.size();
        }

        boolean isClosed() {
            return this.closed;
        }

        @Override
        public boolean isStarted() {
            return !this.setDelays.isEmpty();
        }

        @Override
        public void close() {
            this.closed = true;
            this.rings.clear();
        }

        private record Ring(long at, Runnable wake) {
        }
    }
}
