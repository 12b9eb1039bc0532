package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.client.CallContext;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.RecordingListener.Delayed;
import dev.inference.fixtures.RecordingListener.Exhausted;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The non-blocking retry loop, in virtual time: each attempt plays the next step of a script, told at
 * once or kept to be told later, and the waits end when the test advances the scheduler's clock.
 */
class AsyncRetryTests {

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private static final HttpStatusException REFUSED = new HttpStatusException(400, "bad request", null);

    private final RecordingListener listener = new RecordingListener();

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualScheduler scheduler = new VirtualScheduler(this.clock);

    /** The attempts made, in order; the test tells the outcome of those the script left pending. */
    private final List<AsyncRetry.Attempt<String>> attempts = new ArrayList<>();

    private final List<String> released = new ArrayList<>();

    private final List<Consumer<AsyncRetry.Attempt<String>>> script = new ArrayList<>();

    private static NetworkException reset() {
        return new NetworkException("Connection reset", null);
    }

    private static AttemptEvent event(int attempt, Throwable failure, boolean retryable) {
        return new AttemptEvent("chat", Operation.INVOKE, attempt, failure, retryable);
    }

    private static AttemptEvent success(int attempt) {
        return new AttemptEvent("chat", Operation.INVOKE, attempt, null, false);
    }

    private Retrier.Builder retrier() {
        return Retrier.builder(THREE_ATTEMPTS).name("chat").listener(this.listener).random(FixedRandom.noJitter());
    }

    private AsyncRetryTests then(Consumer<AsyncRetry.Attempt<String>> step) {
        this.script.add(step);
        return this;
    }

    private AsyncRetryTests thenFail(RuntimeException failure) {
        return then((attempt) -> attempt.failed(failure));
    }

    private AsyncRetryTests thenSucceed(String result) {
        return then((attempt) -> attempt.succeeded(result));
    }

    /** An attempt whose outcome the test tells later, through {@link #attempt}. */
    private AsyncRetryTests thenPending() {
        return then((attempt) -> {
        });
    }

    private AsyncRetry.Attempts<String> scripted() {
        return new AsyncRetry.Attempts<>() {

            @Override
            public void attempt(AsyncRetry.Attempt<String> attempt) {
                AsyncRetryTests.this.attempts.add(attempt);
                AsyncRetryTests.this.script.remove(0).accept(attempt);
            }

            @Override
            public void release(String result, Throwable thrown) {
                AsyncRetryTests.this.released.add(result);
            }
        };
    }

    private CompletableFuture<String> call(Retrier.Builder retrier, CallContext context) {
        return AsyncRetry.of(retrier.build(), this.scheduler).call(Operation.INVOKE, context, scripted());
    }

    private CompletableFuture<String> call() {
        return call(retrier(), CallContext.background());
    }

    private AsyncRetry.Attempt<String> attempt(int number) {
        return this.attempts.get(number - 1);
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        assertThat(future).isCompletedExceptionally();
        Throwable thrown = future.handle((value, failure) -> failure).join();
        return (thrown instanceof CompletionException wrapped) ? wrapped.getCause() : thrown;
    }

    @Nested
    class FirstAttempt {

        @Test
        void completesWithTheResultOfAFirstSuccessWithoutWaiting() {
            thenSucceed("hello");

            CompletableFuture<String> future = call();

            assertThat(future).isCompletedWithValue("hello");
            assertThat(listener.calls()).containsExactly(new Finished(success(1)));
            assertThat(scheduler.delays()).isEmpty();
        }

        @Test
        void failsWithTheContextsFailureWithoutAnAttemptWhenTheContextIsDone() {
            CallContext context = CallContext.cancellable();
            context.cancel();
            thenSucceed("hello");

            CompletableFuture<String> future = call(retrier(), context);

            assertThat(failureOf(future)).isInstanceOf(CancellationException.class).hasMessage("The call was cancelled");
            assertThat(attempts).isEmpty();
            assertThat(listener.calls()).isEmpty();
        }

        @Test
        void waitsForACooldownInForceBeforeTheFirstAttempt() {
            LocalCooldownStore store = LocalCooldownStore.withClock(
                    () -> Duration.between(MutableClock.START, clock.instant()).toNanos());
            store.coolDown("openai", Duration.ofSeconds(2));
            thenSucceed("hello");

            CompletableFuture<String> future = call(retrier().cooldown(store, "openai"), CallContext.background());
            assertThat(attempts).isEmpty();
            scheduler.advance(Duration.ofSeconds(2));

            assertThat(future).isCompletedWithValue("hello");
            assertThat(listener.calls()).containsExactly(
                    new Delayed(new CooldownEvent("chat", Operation.INVOKE, 1, "openai", Duration.ofSeconds(2))),
                    new Finished(success(1)));
        }

        @Test
        void takesWhatTheAttemptThrowsForItsFailure() {
            NetworkException reset = reset();
            then((attempt) -> {
                throw reset;
            }).thenSucceed("hello");

            CompletableFuture<String> future = call();
            scheduler.advance(Duration.ofMillis(100));

            assertThat(future).isCompletedWithValue("hello");
            assertThat(listener.calls()).startsWith(new Finished(event(1, reset, true)));
        }
    }

    @Nested
    class Retries {

        @Test
        void makeTheNextAttemptWhenTheBackoffHasPassedOnTheScheduler() {
            NetworkException first = reset();
            NetworkException second = reset();
            thenFail(first).thenFail(second).thenSucceed("hello");

            CompletableFuture<String> future = call();
            scheduler.advance(Duration.ofMillis(100).minusNanos(1));
            assertThat(attempts).hasSize(1);
            scheduler.advance(Duration.ofNanos(1).plusMillis(200));

            assertThat(future).isCompletedWithValue("hello");
            assertThat(attempts).extracting(AsyncRetry.Attempt::number).containsExactly(1, 2, 3);
            assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
            assertThat(listener.calls()).containsExactly(new Finished(event(1, first, true)),
                    new Scheduled(event(1, first, true), Duration.ofMillis(100)), new Finished(event(2, second, true)),
                    new Scheduled(event(2, second, true), Duration.ofMillis(200)), new Finished(success(3)));
        }

        @Test
        void giveUpWithTheExhaustionWhenAttemptsRunOut() {
            List<NetworkException> failures = List.of(reset(), reset(), reset());
            failures.forEach(AsyncRetryTests.this::thenFail);

            CompletableFuture<String> future = call();
            scheduler.advance(Duration.ofSeconds(1));

            assertThat(failureOf(future)).isInstanceOf(ExhaustedException.class)
                .hasCause(failures.get(2))
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactlyElementsOf(failures.subList(0, 2)));
            assertThat(listener.calls()).last().isEqualTo(new Exhausted(event(3, failures.get(2), true), 3, failures.get(2)));
        }

        @Test
        void endWithAPermanentFailureAsTheAttemptToldIt() {
            thenFail(REFUSED);

            assertThat(failureOf(call())).isSameAs(REFUSED);
            assertThat(listener.calls()).containsExactly(new Finished(event(1, REFUSED, false)));
        }

        @Test
        void completeWithAResultHandedBackAfterTheListenersHeardItsFailure() {
            then((attempt) -> attempt.handedBack("400 response", REFUSED));

            CompletableFuture<String> future = call();

            assertThat(future).isCompletedWithValue("400 response");
            assertThat(listener.calls()).containsExactly(new Finished(event(1, REFUSED, false)));
        }

        @Test
        void goOnWhenTheOutcomeIsToldLaterFromAnotherThread() throws Exception {
            NetworkException first = reset();
            thenPending().thenSucceed("hello");
            CompletableFuture<String> future = call();

            Thread teller = new Thread(() -> attempt(1).failed(first));
            teller.start();
            teller.join();
            scheduler.advance(Duration.ofMillis(100));

            assertThat(future).isCompletedWithValue("hello");
        }
    }

    @Nested
    class OutcomesNotDecided {

        /** Ends the only attempt as {@code end} says, then checks the call ends with {@code thrown}, untold. */
        private void endsTheCallAsItIsUntold(Throwable thrown, Consumer<AsyncRetry.Attempt<String>> end) {
            then(end);

            assertThat(failureOf(call())).isSameAs(thrown);
            assertThat(listener.calls()).isEmpty();
        }

        @Test
        void anErrorEndsTheCallAsItIsUntoldToTheListeners() {
            AssertionError bug = new AssertionError("a bug in the transport");
            endsTheCallAsItIsUntold(bug, (attempt) -> attempt.failed(bug));
        }

        @Test
        void aCheckedExceptionEndsTheCallAsItIs() {
            IOException checked = new IOException("closed");
            endsTheCallAsItIsUntold(checked, (attempt) -> attempt.failed(checked));
        }

        @Test
        void anAbandonedAttemptEndsTheCallWithItsCauseUndecided() {
            IllegalStateException readFailed = new IllegalStateException("the body could not be read");
            endsTheCallAsItIsUntold(readFailed, (attempt) -> attempt.abandoned(readFailed));
        }

        @Test
        void anAbandonedAttemptHasItsObservationEnded() {
            List<String> observed = new ArrayList<>();
            IllegalStateException readFailed = new IllegalStateException("the body could not be read");
            then((attempt) -> attempt.abandoned(readFailed));

            call(retrier().observer((client, operation, attempt) -> {
                observed.add("started " + attempt);
                return (outcome, delay) -> observed.add("ended " + attempt + " " + outcome.failure());
            }), CallContext.background());

            assertThat(observed).containsExactly("started 1", "ended 1 " + readFailed);
        }

        @Test
        void anErrorThrownByTheAttemptEndsTheCallAndReachesItsThread() {
            AssertionError bug = new AssertionError("a bug in the attempt");
            then((attempt) -> {
                throw bug;
            });
            AsyncRetry retry = AsyncRetry.of(retrier().build(), scheduler);

            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> retry.call(Operation.INVOKE, CallContext.background(), scripted()))
                .isSameAs(bug);
        }

        @Test
        void aSecondOutcomeOfAnAttemptIsReleasedUnheard() {
            thenPending();
            CompletableFuture<String> future = call();

            attempt(1).succeeded("first");
            attempt(1).succeeded("second");
            attempt(1).failed(reset());

            assertThat(future).isCompletedWithValue("first");
            assertThat(released).containsExactly("second");
            assertThat(listener.calls()).containsExactly(new Finished(success(1)));
        }

        @Test
        void aResultThatAListenersErrorKeepsFromTheCallerIsReleased() {
            AssertionError bug = new AssertionError("a bug in a listener");
            thenPending();
            CompletableFuture<String> future = call(Retrier.builder(THREE_ATTEMPTS).listener(new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw bug;
                }
            }), CallContext.background());

            assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> attempt(1).succeeded("response"))
                .isSameAs(bug);
            assertThat(failureOf(future)).isSameAs(bug);
            assertThat(released).containsExactly("response");
        }
    }

    @Nested
    class HandedBack {

        @Test
        void aResultHandedBackThatAListenersErrorKeepsFromTheCallerIsReleased() {
            AssertionError bug = new AssertionError("a bug in a listener");
            thenPending();
            CompletableFuture<String> future = call(Retrier.builder(THREE_ATTEMPTS).listener(new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw bug;
                }
            }), CallContext.background());

            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> attempt(1).handedBack("400 response", REFUSED))
                .isSameAs(bug);
            assertThat(failureOf(future)).isSameAs(bug);
            assertThat(released).containsExactly("400 response");
        }

        @Test
        void aResultHandedBackAfterTheFutureWasCancelledIsReleasedOnceItsFailureWasHeard() {
            thenPending();
            CompletableFuture<String> future = call();

            future.cancel(true);
            attempt(1).handedBack("400 response", REFUSED);

            assertThat(released).containsExactly("400 response");
            assertThat(listener.calls()).containsExactly(new Finished(event(1, REFUSED, false)));
        }
    }

    @Nested
    class Cancellation {

        @Test
        void cancellingTheFutureDuringAWaitMakesNoFurtherAttempt() {
            thenFail(reset()).thenSucceed("hello");
            CompletableFuture<String> future = call();

            future.cancel(true);
            assertThat(scheduler.pendingWaits()).isZero();
            scheduler.advance(Duration.ofHours(1));

            assertThat(attempts).hasSize(1);
        }

        @Test
        void cancellingTheFutureDuringACooldownMakesNoAttempt() {
            LocalCooldownStore store = LocalCooldownStore.withClock(
                    () -> Duration.between(MutableClock.START, clock.instant()).toNanos());
            store.coolDown("openai", Duration.ofSeconds(2));
            thenSucceed("hello");
            CompletableFuture<String> future = call(retrier().cooldown(store, "openai"), CallContext.background());

            future.cancel(true);
            assertThat(scheduler.pendingWaits()).isZero();
            scheduler.advance(Duration.ofHours(1));

            assertThat(attempts).isEmpty();
        }

        @Test
        void aResultArrivingAfterTheFutureWasCancelledIsReleased() {
            thenPending();
            CompletableFuture<String> future = call();

            future.cancel(true);
            attempt(1).succeeded("late");

            assertThat(released).containsExactly("late");
        }

        @Test
        void cancellingTheFutureEndsTheObservationOfTheAttemptInFlight() {
            List<String> observed = new ArrayList<>();
            thenPending();
            CompletableFuture<String> future = call(retrier().observer((client, operation, attempt) -> {
                observed.add("started " + attempt);
                return (outcome, delay) -> observed.add("ended " + attempt + " " + outcome.failure());
            }), CallContext.background());

            future.cancel(true);

            assertThat(observed).containsExactly("started 1",
                    "ended 1 java.util.concurrent.CancellationException: The call's future was cancelled");
        }

        @Test
        void cancellingTheContextDuringAWaitEndsTheCallAtOnce() {
            NetworkException first = reset();
            CallContext context = CallContext.cancellable();
            thenFail(first).thenSucceed("hello");
            CompletableFuture<String> future = call(retrier(), context);
            scheduler.advance(Duration.ofMillis(50));

            context.cancel();

            assertThat(failureOf(future)).isInstanceOf(CancellationException.class)
                .hasMessage("The call was cancelled")
                .hasSuppressedException(first);
            assertThat(attempts).hasSize(1);
            assertThat(scheduler.pendingWaits()).isZero();
        }
    }

    @Nested
    class DeadlineAndShutdown {

        @Test
        void aDeadlineInsideTheWaitFailsAtOnce() {
            NetworkException first = reset();
            thenFail(first);

            CompletableFuture<String> future = call(retrier(), CallContext.withTimeout(Duration.ofMillis(50), clock));

            assertThat(failureOf(future)).isInstanceOf(DeadlineExceededException.class)
                .hasMessage("The call's deadline would pass during the PT0.1S wait before attempt 2")
                .hasSuppressedException(first);
            assertThat(scheduler.delays()).isEmpty();
        }

        @Test
        void theShutdownSignalEndsAWaitAtOnce() {
            ShutdownSignal signal = ShutdownSignal.create();
            NetworkException first = reset();
            thenFail(first).thenSucceed("hello");
            CompletableFuture<String> future = call(retrier().shutdownSignal(signal), CallContext.background());

            signal.shutDown();

            assertThat(failureOf(future)).isInstanceOf(ShutdownException.class)
                .hasMessage("The application is shutting down: the wait before attempt 2 was ended")
                .hasSuppressedException(first);
            assertThat(scheduler.pendingWaits()).isZero();
        }

        @Test
        void theShutdownSignalEndsACooldownWaitAtOnce() {
            ShutdownSignal signal = ShutdownSignal.create();
            LocalCooldownStore store = LocalCooldownStore.withClock(
                    () -> Duration.between(MutableClock.START, clock.instant()).toNanos());
            store.coolDown("openai", Duration.ofSeconds(2));
            thenSucceed("hello");
            CompletableFuture<String> future = call(retrier().cooldown(store, "openai").shutdownSignal(signal),
                    CallContext.background());

            signal.shutDown();

            assertThat(failureOf(future)).isInstanceOf(ShutdownException.class)
                .hasMessage("The application is shutting down: the cool-down wait before attempt 1 was ended");
            assertThat(attempts).isEmpty();
        }

        @Test
        void aSchedulerThatStopsDuringAWaitEndsTheCall() {
            NetworkException first = reset();
            thenFail(first).thenSucceed("hello");
            CompletableFuture<String> future = call();

            scheduler.stop();

            assertThat(failureOf(future)).isInstanceOf(ShutdownException.class)
                .hasMessage("The application is shutting down: the scheduler of the PT0.1S wait before attempt 2 "
                        + "stopped")
                .hasSuppressedException(first);
            assertThat(attempts).hasSize(1);
        }

        @Test
        void aSchedulerThatRefusesTheWaitEndsTheCall() {
            scheduler.stop();
            thenFail(reset()).thenSucceed("hello");

            assertThat(failureOf(call())).isInstanceOf(ShutdownException.class);
            assertThat(attempts).hasSize(1);
        }
    }

    @Nested
    class AttemptTimeouts {

        private static final Duration TWO_SECONDS = Duration.ofSeconds(2);

        /** An attempt whose owner opts in to the loop's timeout, and tells nothing. */
        private AsyncRetryTests thenPendingTimed() {
            return then((attempt) -> attempt.onTimeout(() -> {
            }));
        }

        private Retrier.Builder timed() {
            return retrier().timeouts(Timeouts.none().withAttempt(TWO_SECONDS));
        }

        @Test
        void failsAnAttemptNotToldInTimeAndRetriesItWithTheBackoffSchedule() {
            thenPendingTimed().thenSucceed("hello");

            CompletableFuture<String> future = call(timed(), CallContext.background());
            scheduler.advance(TWO_SECONDS);
            assertThat(attempts).hasSize(1);
            scheduler.advance(Duration.ofMillis(100));

            assertThat(future).isCompletedWithValue("hello");
            assertThat(attempt(1).timedOut()).isTrue();
            Finished first = (Finished) listener.calls().get(0);
            assertThat(first.event().failure()).isInstanceOf(AttemptTimeoutException.class);
            assertThat(first.event().retryable()).isTrue();
            assertThat(listener.calls().get(1)).isEqualTo(new Scheduled(first.event(), Duration.ofMillis(100)));
        }

        @Test
        void runsTheOwnersAbortActionsWhenTheTimeoutPasses() {
            List<String> aborted = new ArrayList<>();
            then((attempt) -> attempt.onTimeout(() -> aborted.add("request " + attempt.number())))
                .thenSucceed("hello");

            call(timed(), CallContext.background());
            scheduler.advance(Duration.ofSeconds(1));
            assertThat(aborted).isEmpty();
            scheduler.advance(Duration.ofSeconds(1));

            assertThat(aborted).containsExactly("request 1");
        }

        @Test
        void ignoresWhatTheOwnerTellsOnceTheAttemptTimedOut() {
            thenPendingTimed().thenPending();

            CompletableFuture<String> future = call(timed(), CallContext.background());
            scheduler.advance(TWO_SECONDS);
            attempt(1).failed(new CancellationException("aborted by its owner"));
            attempt(1).succeeded("late");

            assertThat(future).isNotDone();
            assertThat(released).containsExactly("late");
            assertThat(listener.calls()).hasSize(2);
        }

        @Test
        void runsAnAbortActionRegisteredAfterTheTimeoutAtOnce() {
            thenPendingTimed().thenPending();
            List<String> aborted = new ArrayList<>();

            call(timed(), CallContext.background());
            scheduler.advance(TWO_SECONDS);
            attempt(1).onTimeout(() -> aborted.add("late"));

            assertThat(aborted).containsExactly("late");
        }

        @Test
        void withdrawsTheTimeoutOnceTheOutcomeIsTold() {
            then((attempt) -> {
                attempt.onTimeout(() -> {
                });
                attempt.succeeded("hello");
            });

            call(timed(), CallContext.background());

            assertThat(scheduler.pendingWaits()).isZero();
        }

        @Test
        void givesWayToTheCallersCancellation() {
            CallContext context = CallContext.cancellable();
            thenPending();
            List<String> aborted = new ArrayList<>();

            CompletableFuture<String> future = call(timed(), context);
            attempt(1).onTimeout(() -> aborted.add("aborted"));
            context.cancel();
            scheduler.advance(TWO_SECONDS);

            assertThat(attempt(1).timedOut()).isFalse();
            assertThat(aborted).isEmpty();
            assertThat(future).isNotDone();
        }

        @Test
        void appliesTheFirstTokenTimeoutToAStream() {
            thenPendingTimed().thenSucceed("hello");

            CompletableFuture<String> future = AsyncRetry
                .of(retrier().timeouts(Timeouts.none().withFirstToken(TWO_SECONDS)).build(), scheduler)
                .call(Operation.STREAM, CallContext.background(), scripted());
            assertThat(attempt(1).timeout()).contains(TWO_SECONDS);
            scheduler.advance(TWO_SECONDS.plusMillis(100));

            assertThat(future).isCompletedWithValue("hello");
        }

        @Test
        void leavesAnAttemptWhoseOwnerRegisteredNoAbortUntimed() {
            thenPending();

            CompletableFuture<String> future = call(timed(), CallContext.background());
            scheduler.advance(Duration.ofHours(1));

            assertThat(future).isNotDone();
            assertThat(scheduler.pendingWaits()).isZero();
        }

        @Test
        void isOffUnlessSet() {
            thenPendingTimed();

            CompletableFuture<String> future = call();
            scheduler.advance(Duration.ofHours(1));

            assertThat(attempt(1).timeout()).isEmpty();
            assertThat(future).isNotDone();
            assertThat(scheduler.pendingWaits()).isZero();
        }

        @Test
        void withdrawsTheTimeoutWhenTheFutureIsCancelled() {
            thenPendingTimed();

            call(timed(), CallContext.background()).cancel(false);

            assertThat(scheduler.pendingWaits()).isZero();
        }
    }

    @Nested
    class Arguments {

        @Test
        void refusesNullArgumentsByName() {
            Retrier retrier = retrier().build();
            AsyncRetry retry = AsyncRetry.of(retrier, scheduler);
            CallContext background = CallContext.background();

            assertThatNullPointerException().isThrownBy(() -> AsyncRetry.of(null, scheduler))
                .withMessage("retrier must not be null");
            assertThatNullPointerException().isThrownBy(() -> AsyncRetry.of(retrier, null))
                .withMessage("scheduler must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.call(null, background, scripted()))
                .withMessage("operation must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.call(Operation.INVOKE, null, scripted()))
                .withMessage("context must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.call(Operation.INVOKE, background, null))
                .withMessage("attempts must not be null");
        }

        @Test
        void refusesNullOutcomesByName() {
            thenPending();
            call();
            AsyncRetry.Attempt<String> first = attempt(1);

            assertThatNullPointerException().isThrownBy(() -> first.handedBack("400 response", null))
                .withMessage("failure must not be null");
            assertThatNullPointerException().isThrownBy(() -> first.failed(null))
                .withMessage("thrown must not be null");
            assertThatNullPointerException().isThrownBy(() -> first.abandoned(null))
                .withMessage("cause must not be null");
        }

        @Test
        void describesItselfByItsRetrierAndScheduler() {
            Retrier retrier = retrier().build();

            assertThat(AsyncRetry.of(retrier, scheduler))
                .hasToString("AsyncRetry[retrier=" + retrier + ", scheduler=" + scheduler + "]");
        }

        @Test
        void describesAnAttemptByItsNumberAndCall() {
            thenPending();
            call();

            assertThat(attempt(1)).hasToString("Attempt[1 of RetryExecution[client=chat, operation=INVOKE, attempt=1]]");
        }

        @Test
        void isTheLoopOfTheRetrierItWasGiven() {
            Retrier retrier = retrier().build();

            assertThat(AsyncRetry.of(retrier, scheduler).retrier()).isSameAs(retrier);
        }
    }
}
