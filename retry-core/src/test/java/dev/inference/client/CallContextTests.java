package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.failure.DeadlineExceededException;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.SpuriousWakeups;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CallContextTests {

    private final MutableClock clock = MutableClock.atStart();

    @Nested
    class Background {

        private final CallContext background = CallContext.background();

        @Test
        void isOneSharedContext() {
            assertThat(CallContext.background()).isSameAs(this.background);
        }

        @Test
        void isNeverDone() {
            assertThat(this.background.isDone()).isFalse();
            assertThat(this.background.failure()).isEmpty();
        }

        @Test
        void hasNoDeadline() {
            assertThat(this.background.deadline()).isEmpty();
            assertThat(this.background.timeRemaining()).isEmpty();
        }

        @Test
        void refusesToBeCancelled() {
            assertThatIllegalStateException().isThrownBy(this.background::cancel)
                .withMessage("The background context cannot be cancelled; create the call's context with "
                        + "CallContext.cancellable()");
            assertThat(this.background.isDone()).isFalse();
        }

        @Test
        void refusesToBeCancelledThroughAView() {
            CallContext view = this.background.withAuthorizer(() -> Map.of("Authorization", "Bearer t"));
            assertThatIllegalStateException().isThrownBy(view::cancel);
        }

        @Test
        void neverRunsAnActionRegisteredForCancellation() {
            AtomicInteger runs = new AtomicInteger();
            this.background.onCancel(runs::incrementAndGet).close();
            assertThat(runs).hasValue(0);
        }

        @Test
        void carriesNoCredentials() {
            assertThat(this.background.authorizer().authorize()).isEmpty();
        }

        @Test
        void describesItself() {
            assertThat(this.background).hasToString("CallContext[background]");
        }
    }

    @Nested
    class Cancellable {

        private final CallContext context = CallContext.cancellable();

        @Test
        void isNotDoneUntilCancelled() {
            assertThat(this.context.isDone()).isFalse();
            assertThat(this.context.failure()).isEmpty();
            assertThat(this.context.deadline()).isEmpty();
        }

        @Test
        void isDoneWithACancellationOnceCancelled() {
            this.context.cancel();
            assertThat(this.context.isDone()).isTrue();
            assertThat(this.context.failure()).get()
                .isExactlyInstanceOf(CancellationException.class)
                .extracting(Throwable::getMessage)
                .isEqualTo("The call was cancelled");
        }

        @Test
        void makesANewFailureEachTime() {
            this.context.cancel();
            assertThat(this.context.failure().get()).isNotSameAs(this.context.failure().get());
        }

        @Test
        void acceptsRepeatedCancels() {
            this.context.cancel();
            this.context.cancel();
            assertThat(this.context.isDone()).isTrue();
        }

        @Test
        void runsEachRegisteredActionOnceWhenCancelled() {
            AtomicInteger runs = new AtomicInteger();
            this.context.onCancel(runs::incrementAndGet);
            this.context.onCancel(runs::incrementAndGet);
            this.context.cancel();
            this.context.cancel();
            assertThat(runs).hasValue(2);
        }

        @Test
        void runsAnActionAtOnceWhenRegisteredAfterTheCancel() {
            AtomicInteger runs = new AtomicInteger();
            this.context.cancel();
            this.context.onCancel(runs::incrementAndGet);
            assertThat(runs).hasValue(1);
        }

        @Test
        void doesNotRunAnActionWhoseRegistrationWasClosed() {
            AtomicInteger runs = new AtomicInteger();
            this.context.onCancel(runs::incrementAndGet).close();
            this.context.cancel();
            assertThat(runs).hasValue(0);
        }

        @Test
        void runsEveryActionAndThenThrowsTheFirstFailureWithTheOthersSuppressed() {
            IllegalStateException first = new IllegalStateException("first");
            IllegalArgumentException second = new IllegalArgumentException("second");
            AtomicInteger runs = new AtomicInteger();
            this.context.onCancel(() -> {
                runs.incrementAndGet();
                throw first;
            });
            this.context.onCancel(() -> {
                runs.incrementAndGet();
                throw second;
            });
            Throwable thrown = catchThrowable(this.context::cancel);
            assertThat(runs).hasValue(2);
            assertThat(this.context.isDone()).isTrue();
            assertThat(thrown).isIn(first, second);
            assertThat(thrown.getSuppressed()).containsExactly((thrown == first) ? second : first);
        }

        @Test
        void describesItsState() {
            assertThat(this.context).hasToString("CallContext[cancellable]");
            this.context.cancel();
            assertThat(this.context).hasToString("CallContext[cancelled]");
        }
    }

    @Nested
    class WithTimeout {

        @Test
        void hasItsDeadlineTimeoutFromTheClocksNow() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            assertThat(context.deadline()).contains(MutableClock.START.plusSeconds(2));
            assertThat(context.timeRemaining()).contains(Duration.ofSeconds(2));
        }

        @Test
        void countsDownOnTheClock() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofMillis(1500));
            assertThat(context.timeRemaining()).contains(Duration.ofMillis(500));
            assertThat(context.isDone()).isFalse();
        }

        @Test
        void isNotDoneOneNanosecondBeforeItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofSeconds(2).minusNanos(1));
            assertThat(context.isDone()).isFalse();
            assertThat(context.failure()).isEmpty();
        }

        @Test
        void isDoneWithADeadlineExceededAtItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofSeconds(2));
            assertThat(context.isDone()).isTrue();
            assertThat(context.timeRemaining()).contains(Duration.ZERO);
            assertThat(context.failure()).get()
                .isExactlyInstanceOf(DeadlineExceededException.class)
                .extracting(Throwable::getMessage)
                .isEqualTo("The call's deadline 2026-01-01T00:00:02Z has passed");
        }

        @Test
        void saysZeroRemainsLongAfterItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofDays(1));
            assertThat(context.timeRemaining()).contains(Duration.ZERO);
        }

        @Test
        void staysDoneWhenTheClockIsSetBackAfterItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofSeconds(2));
            assertThat(context.isDone()).isTrue();
            CallContextTests.this.clock.advance(Duration.ofHours(-1));
            assertThat(context.isDone()).isTrue();
            assertThat(context.timeRemaining()).contains(Duration.ZERO);
        }

        @Test
        void staysDoneWithAZeroTimeoutWhenTheClockIsSetBack() {
            CallContext context = CallContext.withTimeout(Duration.ZERO, CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofHours(-1));
            assertThat(context.isDone()).isTrue();
        }

        @Test
        void saturatesTheTimeRemainingOfAnEnormousTimeoutWhenTheClockIsSetBack() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(Long.MAX_VALUE),
                    CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofHours(-1));
            assertThat(context.timeRemaining()).contains(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
        }

        @Test
        void isDoneAtOnceWithAZeroTimeout() {
            assertThat(CallContext.withTimeout(Duration.ZERO, CallContextTests.this.clock).isDone()).isTrue();
        }

        @Test
        void isDoneAtOnceWithANegativeTimeout() {
            assertThat(CallContext.withTimeout(Duration.ofSeconds(-1), CallContextTests.this.clock).isDone()).isTrue();
        }

        @Test
        void saturatesAnEnormousTimeoutToTheLatestInstant() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(Long.MAX_VALUE), CallContextTests.this.clock);
            assertThat(context.deadline()).contains(Instant.MAX);
            assertThat(context.isDone()).isFalse();
        }

        @Test
        void saturatesATimeoutJustBeyondTheLatestInstant() {
            Duration beyond = Duration.between(MutableClock.START, Instant.MAX).plusSeconds(1);
            CallContext context = CallContext.withTimeout(beyond, CallContextTests.this.clock);
            assertThat(context.deadline()).contains(Instant.MAX);
        }

        @Test
        void saturatesAnEnormousNegativeTimeoutToTheEarliestInstant() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(Long.MIN_VALUE), CallContextTests.this.clock);
            assertThat(context.deadline()).contains(Instant.MIN);
            assertThat(context.isDone()).isTrue();
        }

        @Test
        void endsWithACancellationWhenCancelledBeforeItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            context.cancel();
            CallContextTests.this.clock.advance(Duration.ofSeconds(3));
            assertThat(context.failure()).get().isExactlyInstanceOf(CancellationException.class);
        }

        @Test
        void ignoresACancelAfterItsDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContextTests.this.clock.advance(Duration.ofSeconds(2));
            context.cancel();
            assertThat(context.failure()).get().isExactlyInstanceOf(DeadlineExceededException.class);
        }

        @Test
        void doesNotRunCancellationActionsAtTheDeadlineOrOnALaterCancel() {
            AtomicInteger runs = new AtomicInteger();
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            context.onCancel(runs::incrementAndGet);
            CallContextTests.this.clock.advance(Duration.ofSeconds(2));
            context.cancel();
            assertThat(runs).hasValue(0);
        }

        @Test
        void usesTheSystemClockByDefault() {
            Instant before = Instant.now();
            CallContext context = CallContext.withTimeout(Duration.ofHours(1));
            Instant after = Instant.now();
            assertThat(context.deadline().get()).isBetween(before.plus(Duration.ofHours(1)), after.plus(Duration.ofHours(1)));
            assertThat(context.isDone()).isFalse();
        }

        @Test
        void describesItsDeadline() {
            assertThat(CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock))
                .hasToString("CallContext[cancellable, deadline=2026-01-01T00:00:02Z]");
        }

        @Test
        void refusesNullArguments() {
            assertThatNullPointerException().isThrownBy(() -> CallContext.withTimeout(null, CallContextTests.this.clock))
                .withMessage("timeout must not be null");
            assertThatNullPointerException().isThrownBy(() -> CallContext.withTimeout(Duration.ZERO, null))
                .withMessage("clock must not be null");
        }
    }

    /**
     * The default deadline: reported as an instant of the wall clock, measured on a monotonic
     * one, so that a step of the wall clock (NTP, a VM resumed) neither shortens nor stretches it.
     */
    @Nested
    class WithTimeoutOnTheMonotonicClock {

        private final AtomicLong nanoTime = new AtomicLong(-7_000_000_000L);

        private final CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock,
                this.nanoTime::get);

        @Test
        void reportsItsDeadlineOnTheWallClock() {
            assertThat(this.context.deadline()).contains(MutableClock.START.plusSeconds(2));
            assertThat(this.context.timeRemaining()).contains(Duration.ofSeconds(2));
        }

        @Test
        void keepsItsTimeRemainingWhenTheWallClockStepsForward() {
            CallContextTests.this.clock.advance(Duration.ofHours(1));
            assertThat(this.context.timeRemaining()).contains(Duration.ofSeconds(2));
            assertThat(this.context.isDone()).isFalse();
        }

        @Test
        void keepsItsTimeRemainingWhenTheWallClockStepsBack() {
            CallContextTests.this.clock.advance(Duration.ofHours(-1));
            assertThat(this.context.timeRemaining()).contains(Duration.ofSeconds(2));
        }

        @Test
        void countsDownOnTheMonotonicClock() {
            this.nanoTime.addAndGet(Duration.ofMillis(1500).toNanos());
            assertThat(this.context.timeRemaining()).contains(Duration.ofMillis(500));
            assertThat(this.context.isDone()).isFalse();
        }

        @Test
        void isDoneAtItsDeadlineOnTheMonotonicClockWhateverTheWallClockSays() {
            CallContextTests.this.clock.advance(Duration.ofHours(-1));
            this.nanoTime.addAndGet(Duration.ofSeconds(2).toNanos());
            assertThat(this.context.isDone()).isTrue();
            assertThat(this.context.timeRemaining()).contains(Duration.ZERO);
            assertThat(this.context.failure()).get()
                .extracting(Throwable::getMessage)
                .isEqualTo("The call's deadline 2026-01-01T00:00:02Z has passed");
        }

        @Test
        void isNotEndedByAWallClockStepWhileWaiting() throws InterruptedException {
            CallContextTests.this.clock.advance(Duration.ofHours(1));
            assertThat(this.context.await(Duration.ofMillis(1))).isFalse();
        }

        @Test
        void sharesItsDeadlineWithItsViews() {
            CallContext view = this.context.withAuthorizer(Authorizer.none());
            this.nanoTime.addAndGet(Duration.ofSeconds(2).toNanos());
            assertThat(view.isDone()).isTrue();
        }
    }

    @Nested
    class Views {

        private final Authorizer bearer = () -> Map.of("Authorization", "Bearer token");

        @Test
        void carryTheirOwnAuthorizer() {
            CallContext context = CallContext.cancellable();
            CallContext view = context.withAuthorizer(this.bearer);
            assertThat(view.authorizer()).isSameAs(this.bearer);
            assertThat(context.authorizer().authorize()).isEmpty();
        }

        @Test
        void areCancelledWithTheirContext() {
            CallContext context = CallContext.cancellable();
            CallContext view = context.withAuthorizer(this.bearer);
            context.cancel();
            assertThat(view.isDone()).isTrue();
            AtomicInteger runs = new AtomicInteger();
            view.onCancel(runs::incrementAndGet);
            assertThat(runs).hasValue(1);
        }

        @Test
        void cancelTheirContext() {
            CallContext context = CallContext.cancellable();
            context.withAuthorizer(this.bearer).cancel();
            assertThat(context.isDone()).isTrue();
            assertThat(context.failure()).get().isExactlyInstanceOf(CancellationException.class);
        }

        @Test
        void shareTheDeadlineAndClock() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(2), CallContextTests.this.clock);
            CallContext view = context.withAuthorizer(this.bearer);
            assertThat(view.deadline()).isEqualTo(context.deadline());
            CallContextTests.this.clock.advance(Duration.ofSeconds(2));
            assertThat(view.isDone()).isTrue();
        }

        @Test
        void refuseANullAuthorizer() {
            assertThatNullPointerException().isThrownBy(() -> CallContext.cancellable().withAuthorizer(null))
                .withMessage("authorizer must not be null");
        }
    }

    @Nested
    class Await {

        @Test
        void returnsAtOnceWhenAlreadyCancelled() throws InterruptedException {
            CallContext context = CallContext.cancellable();
            context.cancel();
            assertThat(context.await(Duration.ofDays(365))).isTrue();
        }

        @Test
        void returnsAtOnceWhenTheDeadlineHasPassed() throws InterruptedException {
            CallContext context = CallContext.withTimeout(Duration.ZERO, CallContextTests.this.clock);
            assertThat(context.await(Duration.ofDays(365))).isTrue();
        }

        @Test
        void returnsNotDoneWhenTheTimeoutElapses() throws InterruptedException {
            assertThat(CallContext.cancellable().await(Duration.ofNanos(1))).isFalse();
        }

        @Test
        void returnsNotDoneForABackgroundTimeout() throws InterruptedException {
            assertThat(CallContext.background().await(Duration.ofNanos(1))).isFalse();
        }

        @Test
        void doesNotWaitForAZeroOrNegativeTimeout() throws InterruptedException {
            assertThat(CallContext.cancellable().await(Duration.ZERO)).isFalse();
            assertThat(CallContext.cancellable().await(Duration.ofSeconds(-1))).isFalse();
            assertThat(CallContext.background().await(Duration.ofSeconds(-1))).isFalse();
        }

        @Test
        void throwsWhenInterruptedAndClearsTheFlag() {
            CallContext context = CallContext.cancellable();
            Thread.currentThread().interrupt();
            assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> context.await(Duration.ofDays(1)));
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }

        @Test
        void throwsWhenInterruptedEvenWithoutTime() {
            Thread.currentThread().interrupt();
            assertThatExceptionOfType(InterruptedException.class)
                .isThrownBy(() -> CallContext.background().await(Duration.ZERO));
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }

        @Test
        void throwsWhenInterruptedDuringABackgroundWait() {
            Thread.currentThread().interrupt();
            assertThatExceptionOfType(InterruptedException.class)
                .isThrownBy(() -> CallContext.background().await(Duration.ofDays(1)));
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }

        @Test
        void acceptsATimeoutJustPastTheLongestCountOfNanoseconds() throws InterruptedException {
            CallContext context = CallContext.cancellable();
            context.cancel();
            assertThat(context.await(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L, 999_999_999))).isTrue();
        }

        @Test
        void refusesANullTimeout() {
            assertThatNullPointerException().isThrownBy(() -> CallContext.cancellable().await(null))
                .withMessage("timeout must not be null");
        }

        @Test
        @Timeout(30)
        void returnsEarlyWhenCancelledFromAnotherThread() throws Exception {
            CallContext context = CallContext.cancellable();
            Waiter waiter = Waiter.start(context, Duration.ofHours(1));
            waiter.awaitParked();
            context.cancel();
            assertThat(waiter.done().get()).isTrue();
        }

        @Test
        @Timeout(30)
        void returnsEarlyWhenAViewIsCancelledFromAnotherThread() throws Exception {
            CallContext context = CallContext.cancellable();
            Waiter waiter = Waiter.start(context.withAuthorizer(Authorizer.none()), Duration.ofHours(1));
            waiter.awaitParked();
            context.cancel();
            assertThat(waiter.done().get()).isTrue();
        }

        @Test
        @Timeout(30)
        void keepsWaitingThroughASpuriousWakeup() throws Exception {
            CallContext context = CallContext.cancellable();
            Waiter waiter = Waiter.start(context, Duration.ofHours(1));
            waiter.awaitParked();
            LockSupport.unpark(waiter.thread());
            // Parked again, or still parked: either way the wait did not end without a cancel.
            waiter.awaitParked();
            assertThat(waiter.done()).isNotDone();
            context.cancel();
            assertThat(waiter.done().get()).isTrue();
        }

        @Test
        void aCancellableContextWaitsItsWholeTimeoutThroughSpuriousWakeups() throws Exception {
            CallContext context = CallContext.cancellable();
            Duration timeout = Duration.ofMillis(50);

            assertThat(SpuriousWakeups.lengthOf(() -> assertThat(context.await(timeout)).isFalse()))
                .isGreaterThanOrEqualTo(timeout);
        }

        @Test
        void aBackgroundContextWaitsItsWholeTimeoutThroughSpuriousWakeups() throws Exception {
            Duration timeout = Duration.ofMillis(50);

            assertThat(SpuriousWakeups.lengthOf(() -> assertThat(CallContext.background().await(timeout)).isFalse()))
                .isGreaterThanOrEqualTo(timeout);
        }

        @Test
        @Timeout(30)
        void holdsNoMonitorOrLockWhileWaiting() throws Exception {
            CallContext context = CallContext.cancellable();
            Waiter waiter = Waiter.start(context, Duration.ofHours(1));
            waiter.awaitParked();
            ThreadInfo info = ManagementFactory.getThreadMXBean()
                .getThreadInfo(new long[] { waiter.thread().getId() }, true, true)[0];
            context.cancel();
            assertThat(info.getLockedMonitors()).isEmpty();
            assertThat(info.getLockedSynchronizers()).isEmpty();
            assertThat(info.getLockInfo().getClassName()).isEqualTo(Cancellation.class.getName());
            assertThat(Arrays.stream(info.getStackTrace()).map((frame) -> frame.getClassName() + "." + frame.getMethodName()))
                .contains("java.util.concurrent.locks.LockSupport.parkNanos")
                .doesNotContain("java.lang.Object.wait", "java.lang.Object.wait0");
            assertThat(waiter.done().get()).isTrue();
        }
    }

    /** A thread waiting on a context, so that a test can cancel it. */
    private record Waiter(Thread thread, CompletableFuture<Boolean> done) {

        static Waiter start(CallContext context, Duration timeout) {
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    done.complete(context.await(timeout));
                }
                catch (Throwable ex) {
                    done.completeExceptionally(ex);
                }
            }, "waiter");
            thread.start();
            return new Waiter(thread, done);
        }

        void awaitParked() {
            Thread.State state = this.thread.getState();
            while (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                assertThat(this.done).as("the wait").isNotDone();
                Thread.yield();
                state = this.thread.getState();
            }
        }
    }
}
