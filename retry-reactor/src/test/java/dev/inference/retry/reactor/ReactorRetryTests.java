package dev.inference.retry.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.client.CallContext;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.RecordingListener.Exhausted;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryListener;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ReactorRetryTests {

    /** Waits of 1 s, 2 s and 4 s before attempts 2, 3 and 4; no jitter. */
    private static final Policy POLICY = new Policy(1, Duration.ofSeconds(1), 4, Duration.ofSeconds(10));

    private static final Duration NANO = Duration.ofNanos(1);

    /** A safety net for a test that fails by hanging; virtual time makes a passing test instant. */
    private static final Duration HANG = Duration.ofSeconds(10);

    private final RecordingListener listener = new RecordingListener();

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();

    private final ReactorRetry retry = ReactorRetry.of(retrier(POLICY, this.listener), this.scheduler);

    private static Retrier retrier(Policy policy, RetryListener listener) {
        return Retrier.builder(policy).name("test").listener(listener).random(FixedRandom.noJitter()).build();
    }

    private static HttpStatusException unavailable() {
        return new HttpStatusException(503, "The provider answered 503", null);
    }

    private static Finished succeeded(Operation operation, int attempt) {
        return new Finished(new AttemptEvent("test", operation, attempt, null, false));
    }

    private static Finished failed(Operation operation, int attempt, Throwable failure, boolean retryable) {
        return new Finished(new AttemptEvent("test", operation, attempt, failure, retryable));
    }

    private static Scheduled scheduled(Operation operation, int attempt, Throwable failure, Duration delay) {
        return new Scheduled(new AttemptEvent("test", operation, attempt, failure, true), delay);
    }

    private <T> StepVerifier.FirstStep<T> inVirtualTime(Supplier<? extends Publisher<? extends T>> call) {
        return StepVerifier.withVirtualTime(call, () -> this.scheduler, Long.MAX_VALUE);
    }

    private long virtualNanos() {
        return this.scheduler.now(TimeUnit.NANOSECONDS);
    }

    @Nested
    class MonoCalls {

        @Test
        void emitsTheValueOfTheFirstAttemptThatSucceeds() {
            HttpStatusException first = unavailable();
            HttpStatusException second = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first, second).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono())).thenAwait(Duration.ofSeconds(3))
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(3);
            assertThat(listener.calls()).containsExactly(failed(Operation.INVOKE, 1, first, true),
                    scheduled(Operation.INVOKE, 1, first, Duration.ofSeconds(1)), failed(Operation.INVOKE, 2, second, true),
                    scheduled(Operation.INVOKE, 2, second, Duration.ofSeconds(2)), succeeded(Operation.INVOKE, 3));
        }

        @Test
        void succeedingAtOnceWaitsForNothing() {
            ScriptedSource source = ScriptedSource.script().thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono())).expectNext("ok").expectComplete().verify(HANG);

            assertThat(virtualNanos()).isZero();
            assertThat(listener.calls()).containsExactly(succeeded(Operation.INVOKE, 1));
        }

        @Test
        void anEmptyCompletionIsASuccess() {
            HttpStatusException first = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmit();

            inVirtualTime(() -> retry.mono(source.mono())).thenAwait(Duration.ofSeconds(1))
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
            assertThat(listener.calls()).endsWith(succeeded(Operation.INVOKE, 2));
        }

        @Test
        void aPermanentFailurePassesUnchanged() {
            HttpStatusException badRequest = new HttpStatusException(400, "The provider answered 400", null);
            ScriptedSource source = ScriptedSource.script().thenFail(badRequest);

            inVirtualTime(() -> retry.mono(source.mono()))
                .expectErrorSatisfies((error) -> assertThat(error).isSameAs(badRequest).hasNoSuppressedExceptions())
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).containsExactly(failed(Operation.INVOKE, 1, badRequest, false));
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheLastFailureAsTheCause() {
            List<HttpStatusException> failures = List.of(unavailable(), unavailable(), unavailable(), unavailable());
            ScriptedSource source = ScriptedSource.script().thenFail(failures.toArray(Throwable[]::new));

            inVirtualTime(() -> retry.mono(source.mono())).thenAwait(Duration.ofSeconds(7))
                .expectErrorSatisfies((error) -> {
                    assertThat(error).isInstanceOf(ExhaustedException.class)
                        .hasMessage("Gave up after 4 attempts: " + failures.get(3))
                        .cause().isSameAs(failures.get(3));
                    assertThat(((ExhaustedException) error).attempts()).isEqualTo(4);
                    assertThat(error.getSuppressed()).containsExactlyElementsOf(failures.subList(0, 3));
                })
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(4);
            assertThat(listener.calls()).endsWith(failed(Operation.INVOKE, 4, failures.get(3), true),
                    new Exhausted(new AttemptEvent("test", Operation.INVOKE, 4, failures.get(3), true), 4,
                            failures.get(3)));
        }

        @Test
        void anErrorIsNeverSwallowedNorReported() {
            AssertionError error = new AssertionError("a bug in the source");
            ScriptedSource source = ScriptedSource.script().thenFail(error);

            inVirtualTime(() -> retry.mono(source.mono()))
                .expectErrorSatisfies((thrown) -> assertThat(thrown).isSameAs(error))
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).isEmpty();
        }

        @Test
        void aCheckedExceptionPassesUnchangedAndUnreported() {
            IOException checked = new IOException("a publisher may signal a checked exception");
            ScriptedSource source = ScriptedSource.script().thenFail(checked);

            inVirtualTime(() -> retry.mono(source.mono()))
                .expectErrorSatisfies((thrown) -> assertThat(thrown).isSameAs(checked))
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).isEmpty();
        }

        @Test
        void anErrorThrownByAListenerEndsTheCall() {
            AssertionError error = new AssertionError("a bug in a listener");
            RetryListener throwing = new RetryListener() {
                @Override
                public void retryScheduled(AttemptEvent failed, Duration delay) {
                    throw error;
                }
            };
            ReactorRetry throwingRetry = ReactorRetry.of(retrier(POLICY, throwing), scheduler);
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            inVirtualTime(() -> throwingRetry.mono(source.mono())).thenAwait(Duration.ofMinutes(1))
                .expectErrorSatisfies((thrown) -> assertThat(thrown).isSameAs(error))
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
        }

        @Test
        void eachSubscriptionIsACallOfItsOwn() {
            ScriptedSource source = ScriptedSource.script()
                .thenFail(unavailable())
                .thenEmit("first")
                .thenFail(unavailable())
                .thenEmit("second");
            Mono<String> call = retry.mono(source.mono());

            inVirtualTime(() -> call.concatWith(call)).thenAwait(Duration.ofSeconds(2))
                .expectNext("first", "second")
                .expectComplete()
                .verify(HANG);

            assertThat(listener.calls()).filteredOn(Finished.class::isInstance)
                .extracting((finished) -> ((Finished) finished).event().attempt())
                .containsExactly(1, 2, 1, 2);
        }
    }

    @Nested
    class FluxCalls {

        @Test
        void retriesUntilTheFirstElement() {
            NetworkException reset = new NetworkException("Connection reset", null);
            ScriptedSource source = ScriptedSource.script().thenFail(reset).thenEmit("a", "b", "c");

            inVirtualTime(() -> retry.flux(source.flux())).thenAwait(Duration.ofSeconds(1))
                .expectNext("a", "b", "c")
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
            assertThat(listener.calls()).containsExactly(failed(Operation.STREAM, 1, reset, true),
                    scheduled(Operation.STREAM, 1, reset, Duration.ofSeconds(1)), succeeded(Operation.STREAM, 2));
        }

        @Test
        void anErrorAfterTheFirstElementIsNeverRetried() {
            HttpStatusException midStream = unavailable();
            ScriptedSource source = ScriptedSource.script().thenEmitAndFail(List.of("a", "b"), midStream);

            inVirtualTime(() -> retry.flux(source.flux())).expectNext("a", "b")
                .expectErrorSatisfies((error) -> assertThat(error).isSameAs(midStream).hasNoSuppressedExceptions())
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).containsExactly(succeeded(Operation.STREAM, 1));
        }

        @Test
        void noElementIsEverRepeated() {
            ScriptedSource source = ScriptedSource.script()
                .thenFail(unavailable())
                .thenEmitAndFail(List.of("a"), new NetworkException("Connection reset", null))
                .thenEmit("a", "b");

            inVirtualTime(() -> retry.flux(source.flux())).thenAwait(Duration.ofHours(1))
                .expectNext("a")
                .expectError(NetworkException.class)
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
        }

        @Test
        void anErrorAfterTheFirstElementIsPassedEvenAfterRetries() {
            HttpStatusException first = unavailable();
            IllegalStateException midStream = new IllegalStateException("a malformed chunk");
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmitAndFail(List.of("a"), midStream);

            inVirtualTime(() -> retry.flux(source.flux())).thenAwait(Duration.ofSeconds(1))
                .expectNext("a")
                .expectErrorSatisfies((error) -> assertThat(error).isSameAs(midStream).hasNoSuppressedExceptions())
                .verify(HANG);

            assertThat(listener.calls()).containsExactly(failed(Operation.STREAM, 1, first, true),
                    scheduled(Operation.STREAM, 1, first, Duration.ofSeconds(1)), succeeded(Operation.STREAM, 2));
        }

        @Test
        void reportsTheSuccessBeforeTheFirstElementReachesTheSubscriber() {
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("a", "b");

            inVirtualTime(() -> retry.flux(source.flux())).thenAwait(Duration.ofSeconds(1))
                .consumeNextWith((first) -> assertThat(listener.calls()).last().isEqualTo(succeeded(Operation.STREAM, 2)))
                .expectNext("b")
                .expectComplete()
                .verify(HANG);
        }

        @Test
        void anElementThatAListenersErrorKeepsFromTheSubscriberGoesToTheDiscardHook() {
            AssertionError error = new AssertionError("a bug in a listener");
            ReactorRetry throwingRetry = ReactorRetry.of(retrier(POLICY, new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw error;
                }
            }), scheduler);
            List<String> discarded = new CopyOnWriteArrayList<>();

            inVirtualTime(() -> throwingRetry.flux(ScriptedSource.script().thenEmit("response").flux())
                .doOnDiscard(String.class, discarded::add))
                .expectErrorSatisfies((thrown) -> assertThat(thrown).isSameAs(error))
                .verify(HANG);

            assertThat(discarded).containsExactly("response");
        }

        @Test
        void anEmptyStreamIsASuccess() {
            HttpStatusException first = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmit();

            inVirtualTime(() -> retry.flux(source.flux())).thenAwait(Duration.ofSeconds(1))
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
            assertThat(listener.calls()).endsWith(succeeded(Operation.STREAM, 2));
        }

        @Test
        void aPermanentFailureBeforeTheFirstElementPassesUnchanged() {
            HttpStatusException unauthorized = new HttpStatusException(401, "The provider answered 401", null);
            ScriptedSource source = ScriptedSource.script().thenFail(unauthorized);

            inVirtualTime(() -> retry.flux(source.flux()))
                .expectErrorSatisfies((error) -> assertThat(error).isSameAs(unauthorized))
                .verify(HANG);

            assertThat(listener.calls()).containsExactly(failed(Operation.STREAM, 1, unauthorized, false));
        }
    }

    @Nested
    class Waits {

        @Test
        void waitTheBackoffDelayOnTheScheduler() {
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono())).expectSubscription()
                .expectNoEvent(Duration.ofSeconds(1).minus(NANO))
                .then(() -> assertThat(source.subscriptions()).isEqualTo(1))
                .thenAwait(NANO)
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
        }

        @Test
        void honourRetryAfterCappedAtFiveMinutes() {
            HttpStatusException rateLimited = new HttpStatusException(429, "The provider answered 429",
                    Duration.ofHours(1));
            ScriptedSource source = ScriptedSource.script().thenFail(rateLimited).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono())).expectSubscription()
                .expectNoEvent(Duration.ofMinutes(5).minus(NANO))
                .then(() -> assertThat(source.subscriptions()).isEqualTo(1))
                .thenAwait(NANO)
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);

            assertThat(listener.calls()).contains(scheduled(Operation.INVOKE, 1, rateLimited, Duration.ofMinutes(5)));
        }

        @Test
        void waitOnTheParallelSchedulerLookedUpAtEachWait() {
            ReactorRetry onParallel = ReactorRetry.of(retrier(POLICY, listener));
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            // StepVerifier installs its virtual-time scheduler as Schedulers.parallel() only now.
            StepVerifier.withVirtualTime(() -> onParallel.mono(source.mono()))
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(1).minus(NANO))
                .then(() -> assertThat(source.subscriptions()).isEqualTo(1))
                .thenAwait(NANO)
                .then(() -> assertThat(source.subscriptions()).isEqualTo(2))
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);
        }

        @Test
        void aWaitTooLongForNanosecondsDoesNotOverflow() {
            Duration millennium = Duration.ofDays(365_000);
            ReactorRetry slow = ReactorRetry.of(retrier(new Policy(1, millennium, 2, millennium), listener), scheduler);
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            inVirtualTime(() -> slow.mono(source.mono())).expectSubscription()
                .expectNoEvent(Duration.ofDays(365 * 200))
                .thenCancel()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
        }
    }

    @Nested
    class Cancellation {

        @Test
        void cancellingTheSubscriptionDuringAWaitSubscribesNoMore() {
            HttpStatusException first = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmit("ok");

            // Driven by hand: StepVerifier would dispose the scheduler, and no timer could fire anyway.
            Disposable call = retry.mono(source.mono()).subscribe();
            scheduler.advanceTimeBy(Duration.ofMillis(500));
            call.dispose();
            scheduler.advanceTimeBy(Duration.ofHours(1));

            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).containsExactly(failed(Operation.INVOKE, 1, first, true),
                    scheduled(Operation.INVOKE, 1, first, Duration.ofSeconds(1)));
        }

        @Test
        void withoutCancellingTheSameScriptMakesItsSecondAttempt() {
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            Disposable call = retry.mono(source.mono()).subscribe();
            scheduler.advanceTimeBy(Duration.ofHours(1));

            assertThat(call.isDisposed()).isTrue();
            assertThat(source.subscriptions()).isEqualTo(2);
        }

        @Test
        void cancellingTheContextDuringAWaitEndsTheCallAtOnce() {
            CallContext context = CallContext.cancellable();
            NetworkException reset = new NetworkException("Connection reset", null);
            ScriptedSource source = ScriptedSource.script().thenFail(reset).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono(), context)).expectSubscription()
                .thenAwait(Duration.ofMillis(500))
                .then(context::cancel)
                .expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(CancellationException.class)
                    .hasMessage("The call was cancelled")
                    .hasSuppressedException(reset))
                .verify(HANG);

            assertThat(virtualNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).hasSize(2);
        }

        @Test
        void cancellingTheContextDuringAStreamsWaitEndsTheCallAtOnce() {
            CallContext context = CallContext.cancellable();
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("a");

            inVirtualTime(() -> retry.flux(source.flux(), context)).expectSubscription()
                .thenAwait(Duration.ofMillis(500))
                .then(context::cancel)
                .expectError(CancellationException.class)
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
        }

        @Test
        void aContextCancelledBeforeSubscriptionMakesNoAttempt() {
            CallContext context = CallContext.cancellable();
            context.cancel();
            ScriptedSource source = ScriptedSource.script().thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono(), context))
                .expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(CancellationException.class)
                    .hasMessage("The call was cancelled"))
                .verify(HANG);

            assertThat(source.subscriptions()).isZero();
            assertThat(listener.calls()).isEmpty();
        }

        @Test
        void aContextCancelledAfterTheCallIsHarmless() {
            CallContext context = CallContext.cancellable();
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono(), context)).thenAwait(Duration.ofSeconds(1))
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);
            context.cancel();

            assertThat(source.subscriptions()).isEqualTo(2);
        }
    }

    @Nested
    class Observations {

        private final List<String> observed = new CopyOnWriteArrayList<>();

        private final ReactorRetry observedRetry = ReactorRetry.of(Retrier.builder(POLICY)
            .name("test")
            .random(FixedRandom.noJitter())
            .observer((client, operation, attempt) -> {
                this.observed.add("started " + operation + " " + attempt);
                return (outcome, delay) -> this.observed.add("ended " + operation + " " + attempt + " "
                        + ((outcome.failure() != null) ? outcome.failure().getClass().getSimpleName() : "success"));
            })
            .build(), scheduler);

        @Test
        void anAttemptInFlightWhenTheSubscriptionIsCancelledHasItsObservationEnded() {
            ScriptedSource source = ScriptedSource.script().thenHang();

            inVirtualTime(() -> this.observedRetry.mono(source.mono())).expectSubscription().thenCancel().verify(HANG);

            assertThat(this.observed).containsExactly("started INVOKE 1", "ended INVOKE 1 CancellationException");
        }

        @Test
        void aStreamsLaterAttemptInFlightWhenTheSubscriptionIsCancelledHasItsObservationEnded() {
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable()).thenHang();

            inVirtualTime(() -> this.observedRetry.flux(source.flux()))
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(1))
                .thenCancel()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
            assertThat(this.observed).containsExactly("started STREAM 1", "ended STREAM 1 HttpStatusException",
                    "started STREAM 2", "ended STREAM 2 CancellationException");
        }

        @Test
        void anAttemptEndedByAnErrorHasItsObservationEnded() {
            ScriptedSource source = ScriptedSource.script().thenFail(new AssertionError("a bug in the source"));

            inVirtualTime(() -> this.observedRetry.mono(source.mono())).expectError(AssertionError.class).verify(HANG);

            assertThat(this.observed).containsExactly("started INVOKE 1", "ended INVOKE 1 AssertionError");
        }

        @Test
        void aCancellationAfterTheFirstElementEndsNoObservationAgain() {
            ScriptedSource source = ScriptedSource.script().thenEmit("first", "second");

            inVirtualTime(() -> this.observedRetry.flux(source.flux()).take(1)).expectNext("first").expectComplete()
                .verify(HANG);

            assertThat(this.observed).containsExactly("started STREAM 1", "ended STREAM 1 success");
        }
    }

    @Nested
    class Deadline {

        @Test
        void aDeadlineInsideTheFirstWaitFailsAtOnce() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(500), NanoClock.of(scheduler));
            HttpStatusException first = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmit("ok");

            inVirtualTime(() -> retry.mono(source.mono(), context))
                .expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(DeadlineExceededException.class)
                    .hasMessage("The call's deadline would pass during the PT1S wait before attempt 2")
                    .hasSuppressedException(first))
                .verify(HANG);

            assertThat(virtualNanos()).isZero();
            assertThat(source.subscriptions()).isEqualTo(1);
            assertThat(listener.calls()).containsExactly(failed(Operation.INVOKE, 1, first, true));
        }

        @Test
        void aDeadlineInsideALaterWaitFailsAtOnce() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(1500), NanoClock.of(scheduler));
            HttpStatusException second = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(unavailable(), second).thenEmit("ok");

            inVirtualTime(() -> retry.flux(source.flux(), context)).thenAwait(Duration.ofSeconds(1))
                .expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(DeadlineExceededException.class)
                    .hasMessage("The call's deadline would pass during the PT2S wait before attempt 3")
                    .hasSuppressedException(second))
                .verify(HANG);

            assertThat(virtualNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
            assertThat(source.subscriptions()).isEqualTo(2);
        }
    }

    @Nested
    class Arguments {

        @Test
        void nullArgumentsAreRefusedByName() {
            Retrier retrier = retrier(POLICY, listener);
            CallContext context = CallContext.background();
            assertThatNullPointerException().isThrownBy(() -> ReactorRetry.of(null))
                .withMessage("retrier must not be null");
            assertThatNullPointerException().isThrownBy(() -> ReactorRetry.of(retrier, null))
                .withMessage("scheduler must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.mono(null, context))
                .withMessage("source must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.mono(Mono.just("ok"), null))
                .withMessage("context must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.flux(null, context))
                .withMessage("source must not be null");
            assertThatNullPointerException().isThrownBy(() -> retry.flux(Flux.just("ok"), null))
                .withMessage("context must not be null");
        }

        @Test
        void theRetrierIsTheOneGiven() {
            Retrier retrier = retrier(POLICY, listener);

            assertThat(ReactorRetry.of(retrier).retrier()).isSameAs(retrier);
        }

        @Test
        void toStringNamesTheRetrierAndTheScheduler() {
            Retrier retrier = retrier(POLICY, listener);

            assertThat(ReactorRetry.of(retrier)).hasToString("ReactorRetry[retrier=" + retrier + ", scheduler=parallel]");
        }
    }

    @Nested
    class CooldownsAndShutdown {

        private final LocalCooldownStore store = LocalCooldownStore.withClock(ReactorRetryTests.this::virtualNanos);

        private final ShutdownSignal signal = ShutdownSignal.create();

        private final ReactorRetry sharing = ReactorRetry.of(Retrier.builder(POLICY)
            .name("test")
            .listener(ReactorRetryTests.this.listener)
            .random(FixedRandom.noJitter())
            .cooldown(this.store, "account")
            .shutdownSignal(this.signal)
            .build(), ReactorRetryTests.this.scheduler);

        @Test
        void waitsForACooldownInForceBeforeTheFirstAttempt() {
            this.store.coolDown("account", Duration.ofSeconds(5));
            ScriptedSource source = ScriptedSource.script().thenEmit("ok");

            inVirtualTime(() -> this.sharing.mono(source.mono())).thenAwait(Duration.ofSeconds(5).minus(NANO))
                .then(() -> assertThat(source.subscriptions()).isZero())
                .thenAwait(NANO)
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);
        }

        @Test
        void waitsForTheLaterOfTheBackoffAndACooldownTheFailureSet() {
            HttpStatusException throttled = new HttpStatusException(429, "slow down", Duration.ofSeconds(3));
            ScriptedSource source = ScriptedSource.script().thenFail(throttled).thenEmit("ok");

            inVirtualTime(() -> this.sharing.flux(source.flux())).thenAwait(Duration.ofSeconds(3))
                .expectNext("ok")
                .expectComplete()
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(2);
            assertThat(virtualNanos()).isEqualTo(Duration.ofSeconds(3).toNanos());
        }

        @Test
        void endsAWaitAtOnceWhenTheApplicationShutsDown() {
            HttpStatusException first = unavailable();
            ScriptedSource source = ScriptedSource.script().thenFail(first).thenEmit("never");

            inVirtualTime(() -> this.sharing.mono(source.mono())).thenAwait(Duration.ofMillis(500))
                .then(this.signal::shutDown)
                .expectErrorSatisfies((thrown) -> {
                    assertThat(thrown).isInstanceOf(ShutdownException.class)
                        .hasMessage("The application is shutting down: the wait before attempt 2 was ended");
                    assertThat(thrown.getSuppressed()).containsExactly(first);
                })
                .verify(HANG);

            assertThat(source.subscriptions()).isEqualTo(1);
        }

        @Test
        void endsACooldownWaitAtOnceWhenTheApplicationShutsDown() {
            this.store.coolDown("account", Duration.ofMinutes(1));
            ScriptedSource source = ScriptedSource.script().thenEmit("never");

            inVirtualTime(() -> this.sharing.mono(source.mono())).thenAwait(Duration.ofSeconds(1))
                .then(this.signal::shutDown)
                .expectError(ShutdownException.class)
                .verify(HANG);

            assertThat(source.subscriptions()).isZero();
        }
    }
}
