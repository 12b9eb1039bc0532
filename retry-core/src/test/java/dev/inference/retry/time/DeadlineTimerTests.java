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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
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
        void runInTheOrderOfTheirDeadlinesThenInTheOrderTheyWereScheduled() {
            timer.schedule(Duration.ofSeconds(2), () -> happened.add("b"));
            timer.schedule(Duration.ofSeconds(3), () -> happened.add("d"));
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));
            timer.schedule(Duration.ofSeconds(2), () -> happened.add("c"));

            alarm.advance(Duration.ofSeconds(3));

            assertThat(happened).containsExactly("a", "b", "c", "d");
        }

        @Test
        void neverRunOnceWithdrawn() {
            CallContext.Registration registration = timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            registration.close();
            assertThat(timer.pending()).isZero();
            alarm.advance(Duration.ofSeconds(2));

            assertThat(happened).isEmpty();
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
        void cutShortByAnErrorOfAnotherRunAtTheNextWakeUp() {
            timer.schedule(Duration.ofSeconds(1), () -> {
                throw new AssertionError("boom");
            });
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("b"));

            assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> alarm.advance(Duration.ofSeconds(1)))
                .withMessage("boom");
            assertThat(happened).isEmpty();
            alarm.advance(Duration.ZERO);

            assertThat(happened).containsExactly("b");
        }

        @Test
        void ofTheLongestDurationDoNotOverflowIntoThePast() {
            timer.schedule(Duration.ofSeconds(Long.MAX_VALUE), () -> happened.add("never"));
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            alarm.advance(Duration.ofMinutes(1));

            assertThat(happened).containsExactly("a");
            assertThat(timer.pending()).isOne();
        }

        @Test
        void areNoLongerHeldOnceRun() {
            timer.schedule(Duration.ofSeconds(1), () -> happened.add("a"));

            alarm.advance(Duration.ofSeconds(1));

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(0, 0));
        }

        @Test
        void letGoOfTheirActionOnceWithdrawnThoughTheTimerStillHoldsThem() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a")).close();

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(1, 0));
        }
    }

    @Nested
    class WakeUps {

        @Test
        void areSetWithinASecondForALaterDeadline() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(1));
        }

        @Test
        void areNotSetForADeadlineNoEarlierThanTheOneAwaited() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));
            alarm.advance(Duration.ofMillis(1));
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("b"));
            timer.schedule(Duration.ofMillis(999), () -> happened.add("c"));

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(1));
        }

        @Test
        void areNotSetWhenADeadlineIsWithdrawn() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a")).close();
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("b")).close();

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(1));
            assertThat(alarm.pendingRings()).isOne();
        }

        @Test
        void areSetAgainForAnEarlierDeadlineReplacingTheLaterOne() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));
            timer.schedule(Duration.ofMillis(200), () -> happened.add("b"));

            assertThat(alarm.setDelays()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(200));
            assertThat(alarm.pendingRings()).isOne();
        }

        @Test
        void setTheNextOneWhenTheDeadlineAwaitedWasWithdrawn() {
            timer.schedule(Duration.ofMillis(300), () -> happened.add("a")).close();
            timer.schedule(Duration.ofMillis(800), () -> happened.add("b"));

            alarm.advance(Duration.ofMillis(300));
            assertThat(happened).isEmpty();
            assertThat(alarm.setDelays()).containsExactly(Duration.ofMillis(300), Duration.ofMillis(500));
            alarm.advance(Duration.ofMillis(500));

            assertThat(happened).containsExactly("b");
        }

        @Test
        void comeOnceASecondWhileADeadlineIsPending() {
            timer.schedule(Duration.ofSeconds(30), () -> happened.add("a"));

            alarm.advance(Duration.ofSeconds(30));

            assertThat(alarm.setDelays()).hasSize(30).containsOnly(Duration.ofSeconds(1));
        }

        @Test
        void dropWithdrawnDeadlinesWithinASecondAndEndOnceNothingIsPending() {
            for (int i = 0; i < 10_000; i++) {
                timer.schedule(Duration.ofSeconds(30), () -> happened.add("never")).close();
            }

            alarm.advance(Duration.ofSeconds(1));

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(0, 0));
            assertThat(alarm.pendingRings()).isZero();
        }

        @Test
        void areNotWaitedForToDropTheDeadlinesWithdrawnOneAfterAnother() {
            for (int i = 0; i < 10_000; i++) {
                timer.schedule(Duration.ofSeconds(30), () -> happened.add("never")).close();
            }

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(1, 0));
        }

        @Test
        void dropDeadlinesWithdrawnBehindAPendingOneWithinASecond() {
            timer.schedule(Duration.ofSeconds(10), () -> happened.add("a"));
            List<CallContext.Registration> later = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                later.add(timer.schedule(Duration.ofSeconds(30), () -> happened.add("never")));
            }
            alarm.advance(Duration.ofSeconds(1));
            later.forEach(CallContext.Registration::close);

            alarm.advance(Duration.ofSeconds(1));

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(1, 1));
            assertThat(timer.pending()).isOne();
        }

        @Test
        void areSetOnceForADeadlineThatRunsOnIt() {
            timer.schedule(Duration.ofMillis(500), () -> happened.add("a"));

            alarm.advance(Duration.ofMillis(500));

            assertThat(happened).containsExactly("a");
            assertThat(alarm.setDelays()).containsExactly(Duration.ofMillis(500));
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

        @Test
        void letGoOfTheWaitOnceCancelledThoughTheTimerStillHoldsThem() {
            timer.schedule(Duration.ofSeconds(2), recording("a")).cancel();

            assertThat(timer.retained()).isEqualTo(new DeadlineTimer.Retained(1, 0));
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

        private static final int THREADS = 4;

        private static final int EACH = 2_000;

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
            AtomicIntegerArray runs = new AtomicIntegerArray(THREADS * EACH);
            ExecutorService callers = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> scheduled = scheduleFromEveryThread(callers, (index) -> {
                    CallContext.Registration registration = real.schedule(mixedDelay(index),
                            () -> runs.incrementAndGet(index));
                    if (index % 2 == 1) {
                        registration.close();
                    }
                });
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

        @Test
        void endsEveryWaitExactlyOnceWhenClosedWhileThreadsSchedule() throws Exception {
            DeadlineTimer real = new DeadlineTimer("deadline-timer-test");
            AtomicIntegerArray ends = new AtomicIntegerArray(THREADS * EACH);
            AtomicInteger ended = new AtomicInteger();
            ExecutorService callers = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> scheduled = scheduleFromEveryThread(callers, (index) -> {
                    Runnable end = () -> {
                        ends.incrementAndGet(index);
                        ended.incrementAndGet();
                    };
                    real.schedule(mixedDelay(index), new WaitScheduler.Wait() {

                        @Override
                        public void elapsed() {
                            end.run();
                        }

                        @Override
                        public void abandoned() {
                            end.run();
                        }
                    });
                });
                // Closed once the first wait has ended: most likely, others are pending and more are coming.
                long first = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (ended.get() == 0 && System.nanoTime() < first) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                }
                real.close();
                for (Future<?> caller : scheduled) {
                    caller.get(10, TimeUnit.SECONDS);
                }
                // A deadline that was running as the timer closed may still be ending on its thread.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (ended.get() < ends.length() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }

                assertThat(real.pending()).isZero();
                for (int i = 0; i < ends.length(); i++) {
                    assertThat(ends.get(i)).as("ends of wait %d", i).isOne();
                }
            }
            finally {
                callers.shutdownNow();
                real.close();
            }
        }

        /** Calls {@code schedule} for {@link #EACH} indices on each of {@link #THREADS} threads at once. */
        private List<Future<?>> scheduleFromEveryThread(ExecutorService callers, IntConsumer schedule) {
            List<Future<?>> scheduled = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t * EACH;
                scheduled.add(callers.submit(() -> {
                    for (int index = first; index < first + EACH; index++) {
                        schedule.accept(index);
                    }
                }));
            }
            return scheduled;
        }

        /** Later and earlier deadlines mixed, up to 2 ms, so that wake-ups are both kept and replaced. */
        private Duration mixedDelay(int index) {
            return Duration.ofNanos((index * 7919L) % 2_000_000);
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

        /** Negative, as {@link System#nanoTime()} may be, and far from zero, so that the origin matters. */
        private long now = -Duration.ofDays(1).toNanos();

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
