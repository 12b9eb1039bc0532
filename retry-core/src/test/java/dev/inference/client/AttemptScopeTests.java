package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.VirtualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class AttemptScopeTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualTimer timer = new VirtualTimer(this.clock);

    private final CallContext caller = CallContext.cancellable();

    @Nested
    class OwnTimeout {

        @Test
        void leavesTheAttemptRunningUntilItPasses() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            timer.advance(TIMEOUT.minusNanos(1));

            assertThat(attempt.context().isDone()).isFalse();
            assertThat(attempt.timedOut()).isFalse();
        }

        @Test
        void endsTheAttemptAndRunsItsCancellationActionsWhenItPasses() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            AtomicInteger aborts = new AtomicInteger();
            attempt.context().onCancel(aborts::incrementAndGet);

            timer.advance(TIMEOUT);

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(attempt.timedOut()).isTrue();
            assertThat(aborts).hasValue(1);
        }

        @Test
        void neverCancelsTheCallersContext() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            timer.advance(TIMEOUT);

            assertThat(attempt.timedOut()).isTrue();
            assertThat(caller.isDone()).isFalse();
            assertThat(caller.failure()).isEmpty();
        }

        @Test
        void makesTheAttemptsContextFailWithAnAttemptTimeout() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            timer.advance(TIMEOUT);

            assertThat(attempt.context().failure().orElseThrow())
                .isInstanceOfSatisfying(AttemptTimeoutException.class,
                        (timeout) -> assertThat(timeout.timeout()).isEqualTo(TIMEOUT))
                .hasMessage("The attempt ran past its timeout of PT30S and was abandoned");
        }

        @Test
        void turnsWhatTheAbandonedAttemptThrewIntoAnAttemptTimeoutThatCarriesIt() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            timer.advance(TIMEOUT);
            CancellationException aborted = new CancellationException("request aborted");

            RuntimeException failure = attempt.failureFor(aborted);

            assertThat(failure).isInstanceOf(AttemptTimeoutException.class).hasNoCause();
            assertThat(failure.getSuppressed()).containsExactly(aborted);
        }

        @Test
        void keepsWhatAnAbortActionThrewOnTheTimersThread() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            IllegalStateException broken = new IllegalStateException("abort failed");
            attempt.context().onCancel(() -> {
                throw broken;
            });

            timer.advance(TIMEOUT);

            assertThat(attempt.failureFor(new NetworkException("reset", null)).getSuppressed()).contains(broken);
        }

        @Test
        void isStoppedByCancelTimeout() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            attempt.cancelTimeout();
            timer.advance(TIMEOUT.multipliedBy(2));

            assertThat(attempt.context().isDone()).isFalse();
            assertThat(attempt.timedOut()).isFalse();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void refusesATimeoutThatIsNotPositive() {
            assertThatIllegalArgumentException().isThrownBy(() -> caller.startAttempt(Duration.ZERO, timer))
                .withMessage("timeout must be positive, was PT0S");
            assertThat(caller.registeredActions()).isZero();
        }

        @Test
        void leavesNothingOnTheCallersContextWhenTheTimerRefusesTheTask() {
            AttemptScope.Timer refusing = (delay, action) -> {
                throw new RejectedExecutionException("timer stopped");
            };

            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> caller.startAttempt(TIMEOUT, refusing));
            assertThat(caller.registeredActions()).isZero();
        }
    }

    @Nested
    class CallerFirst {

        @Test
        void endsTheAttemptWhenTheCallerCancelsAndRunsItsCancellationActions() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            AtomicInteger aborts = new AtomicInteger();
            attempt.context().onCancel(aborts::incrementAndGet);

            caller.cancel();

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(aborts).hasValue(1);
            assertThat(attempt.timedOut()).isFalse();
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(CancellationException.class)
                .hasMessage("The call was cancelled");
        }

        @Test
        void leavesTheCallersCancellationAsTheInnerClientThrewIt() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            caller.cancel();
            CancellationException thrown = new CancellationException("aborted");

            assertThat(attempt.failureFor(thrown)).isSameAs(thrown);
        }

        @Test
        void endsTheAttemptWhenTheCallersDeadlinePasses() {
            CallContext withDeadline = CallContext.withTimeout(Duration.ofSeconds(10), clock);
            AttemptScope attempt = withDeadline.startAttempt(TIMEOUT, timer);

            timer.advance(Duration.ofSeconds(10));

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(attempt.timedOut()).isFalse();
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(DeadlineExceededException.class);
        }

        @Test
        void winsOverATimeoutThatCameBeforeIt() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            timer.advance(TIMEOUT);
            caller.cancel();
            NetworkException thrown = new NetworkException("aborted", null);

            assertThat(attempt.timedOut()).isTrue();
            assertThat(attempt.failureFor(thrown)).isSameAs(thrown);
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(CancellationException.class);
        }

        @Test
        void winsOverATimeoutOfTheSameLength() {
            CallContext withDeadline = CallContext.withTimeout(TIMEOUT, clock);
            AttemptScope attempt = withDeadline.startAttempt(TIMEOUT, timer);
            timer.advance(TIMEOUT);
            DeadlineExceededException thrown = new DeadlineExceededException("past the deadline");

            assertThat(attempt.failureFor(thrown)).isSameAs(thrown);
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(DeadlineExceededException.class);
        }

        @Test
        void isSeenAtOnceWhenTheCallWasCancelledBeforeTheAttemptStarted() {
            caller.cancel();
            AtomicInteger aborts = new AtomicInteger();

            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            attempt.context().onCancel(aborts::incrementAndGet);

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(aborts).hasValue(1);
            assertThat(timer.pending()).isZero();
        }
    }

    @Nested
    class SharedWithTheCaller {

        @Test
        void carriesTheCallersAuthorizerAndDeadline() {
            Authorizer key = () -> Map.of("Authorization", "Bearer k");
            CallContext withDeadline = CallContext.withTimeout(Duration.ofMinutes(1), clock).withAuthorizer(key);

            CallContext attemptContext = withDeadline.startAttempt(TIMEOUT, timer).context();

            assertThat(attemptContext.authorizer()).isSameAs(key);
            assertThat(attemptContext.deadline()).isEqualTo(withDeadline.deadline());
            assertThat(attemptContext.timeRemaining()).contains(Duration.ofMinutes(1));
        }

        @Test
        void hasViewsThatShareTheAttempt() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            CallContext view = attempt.context().withAuthorizer(Authorizer.none());

            timer.advance(TIMEOUT);

            assertThat(view.isDone()).isTrue();
            assertThat(view.failure().orElseThrow()).isInstanceOf(AttemptTimeoutException.class);
        }

        @Test
        void worksUnderTheBackgroundContext() {
            AttemptScope attempt = CallContext.background().startAttempt(TIMEOUT, timer);

            timer.advance(TIMEOUT);

            assertThat(attempt.timedOut()).isTrue();
            assertThat(CallContext.background().isDone()).isFalse();
        }

        @Test
        void describesItself() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            assertThat(attempt).hasToString("AttemptScope[running, timeout=PT30S]");
            assertThat(attempt.context()).hasToString("CallContext[cancellable, attempt]");
        }
    }

    @Nested
    class CancelledByItsOwner {

        @Test
        void endsTheAttemptButNotTheCall() {
            AttemptScope attempt = caller.startAttempt();
            AtomicInteger aborts = new AtomicInteger();
            attempt.context().onCancel(aborts::incrementAndGet);

            attempt.cancel();

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(aborts).hasValue(1);
            assertThat(caller.isDone()).isFalse();
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(CancellationException.class)
                .hasMessage("The attempt was cancelled");
        }

        @Test
        void isWhatCancellingTheAttemptsContextDoes() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);

            attempt.context().cancel();

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(caller.isDone()).isFalse();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void isNoTimeout() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            attempt.cancel();
            timer.advance(TIMEOUT);
            NetworkException thrown = new NetworkException("closed", null);

            assertThat(attempt.timedOut()).isFalse();
            assertThat(attempt.failureFor(thrown)).isSameAs(thrown);
        }
    }

    @Nested
    class Closed {

        @Test
        void withdrawsItsRegistrationFromTheCallerAndItsTaskFromTheTimer() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            assertThat(caller.registeredActions()).isOne();
            assertThat(timer.pending()).isOne();

            attempt.close();

            assertThat(caller.registeredActions()).isZero();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void leavesNothingBehindAfterManyAttemptsThatTimedOutWereCancelledOrSucceeded() {
            for (int i = 0; i < 1_000; i++) {
                try (AttemptScope attempt = caller.startAttempt(TIMEOUT, timer)) {
                    attempt.context().onCancel(() -> {
                    });
                    switch (i % 3) {
                        case 0 -> timer.advance(TIMEOUT);
                        case 1 -> attempt.cancel();
                        default -> {
                        }
                    }
                }
            }

            assertThat(caller.registeredActions()).isZero();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void runsNoCancellationActionOnCloseNorAfterwards() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            AtomicInteger aborts = new AtomicInteger();
            attempt.context().onCancel(aborts::incrementAndGet);

            attempt.close();
            timer.advance(TIMEOUT);
            caller.cancel();

            assertThat(aborts).hasValue(0);
            assertThat(attempt.timedOut()).isFalse();
        }

        @Test
        void keepsReportingTheCallersStateAfterwards() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            attempt.close();

            caller.cancel();

            assertThat(attempt.context().isDone()).isTrue();
            assertThat(attempt.context().failure().orElseThrow()).isInstanceOf(CancellationException.class);
        }

        @Test
        void keepsATimeoutThatCameBeforeTheClose() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            timer.advance(TIMEOUT);

            attempt.close();

            assertThat(attempt.timedOut()).isTrue();
            assertThat(attempt).hasToString("AttemptScope[timed_out, timeout=PT30S]");
        }
    }

    @Nested
    class InTheLoopsThatUseIt {

        /** The blocking loop: the caller's thread is inside the inner client when the timer ends the attempt. */
        @Test
        @Timeout(10)
        void abandonsAnInnerClientBlockedOnTheCallersThread() throws Exception {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            CountDownLatch sent = new CountDownLatch(1);
            CompletableFuture<RuntimeException> outcome = CompletableFuture.supplyAsync(() -> {
                // An inner client that honours its context: blocked until its request is aborted.
                CountDownLatch aborted = new CountDownLatch(1);
                try (CallContext.Registration abort = attempt.context().onCancel(aborted::countDown)) {
                    sent.countDown();
                    aborted.await();
                    return attempt.failureFor(new CancellationException("request aborted"));
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            sent.await();

            timer.advance(TIMEOUT);

            assertThat(outcome.get()).isInstanceOf(AttemptTimeoutException.class);
            attempt.close();
            assertThat(caller.registeredActions()).isZero();
        }

        /** The asynchronous loop: the attempt's outcome completes a future; the timer aborts the exchange. */
        @Test
        void abandonsAnAsynchronousExchange() {
            AttemptScope attempt = caller.startAttempt(TIMEOUT, timer);
            CompletableFuture<String> exchange = new CompletableFuture<>();
            attempt.context().onCancel(() -> exchange.cancel(false));
            List<RuntimeException> failures = new ArrayList<>();
            exchange.whenComplete((response, thrown) -> {
                attempt.close();
                failures.add(attempt.failureFor(new CancellationException("exchange cancelled")));
            });

            timer.advance(TIMEOUT);

            assertThat(failures).singleElement().isInstanceOf(AttemptTimeoutException.class);
            assertThat(caller.registeredActions()).isZero();
        }

        @Test
        @Timeout(10)
        void isTimedByAScheduledExecutorWithoutAThreadPerAttempt() throws Exception {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
            executor.setRemoveOnCancelPolicy(true);
            try {
                AttemptScope.Timer real = AttemptScope.Timer.of(executor);
                // The executor's one thread is held until the abort action is registered, so that the
                // timeout cannot pass before it and run it on this thread.
                CountDownLatch registered = new CountDownLatch(1);
                executor.execute(() -> {
                    try {
                        registered.await();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
                CompletableFuture<Thread> abortedOn = new CompletableFuture<>();
                AttemptScope timedOut = caller.startAttempt(Duration.ofMillis(1), real);
                timedOut.context().onCancel(() -> abortedOn.complete(Thread.currentThread()));
                registered.countDown();
                AttemptScope closed = caller.startAttempt(Duration.ofHours(1), real);

                assertThat(abortedOn.get(5, TimeUnit.SECONDS)).isNotSameAs(Thread.currentThread());
                closed.close();
                timedOut.close();

                assertThat(timedOut.timedOut()).isTrue();
                assertThat(executor.getQueue()).isEmpty();
                assertThat(caller.registeredActions()).isZero();
            }
            finally {
                executor.shutdownNow();
            }
        }
    }
}
