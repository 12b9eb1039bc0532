package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.RecordingListener.Delayed;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The blocking retry loop, in virtual time: each attempt plays the next step of a script, and the
 * waits advance a test clock.
 */
class BlockingRetryTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    /** Waits an hour, so that a wait that really blocks would outlast the test. */
    private static final Policy HOUR_LONG_WAIT = new Policy(1, Duration.ofHours(1), 2, Duration.ofHours(1));

    private static final HttpStatusException REFUSED = new HttpStatusException(400, "bad request", null);

    private final ScriptedClient inner = ScriptedClient.script();

    private final RecordingListener listener = new RecordingListener();

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    /** The number of each attempt made, in order. */
    private final List<Integer> attemptNumbers = new ArrayList<>();

    private final List<String> released = new ArrayList<>();

    private Retrier.Builder retrier(Policy policy) {
        return Retrier.builder(policy).name("chat").listener(this.listener).random(FixedRandom.noJitter());
    }

    /** A loop named "chat" that waits in virtual time with a jitter factor of exactly 1. */
    private BlockingRetry blocking(Retrier.Builder retrier) {
        return BlockingRetry.of(retrier.sleeper(this.sleeper).build());
    }

    private BlockingRetry blocking() {
        return blocking(retrier(THREE_ATTEMPTS));
    }

    /** Attempts that play the script; whatever they return succeeds. */
    private BlockingRetry.Attempts<InferenceResponse, RuntimeException> scripted() {
        return (attempt) -> {
            this.attemptNumbers.add(attempt);
            return this.inner.invoke(REQUEST);
        };
    }

    /**
     * Attempts that play the script, as a caller with every hook would: a response reading "refused"
     * stands for {@link #REFUSED} and is handed back, a released response is recorded, and a success
     * is stamped with the number of attempts.
     */
    private BlockingRetry.Attempts<InferenceResponse, RuntimeException> attempts() {
        return new BlockingRetry.Attempts<>() {

            @Override
            public InferenceResponse attempt(int attempt) {
                return scripted().attempt(attempt);
            }

            @Override
            public @Nullable RuntimeException handedBackFailureOf(InferenceResponse result) {
                return result.output().equals("refused") ? REFUSED : null;
            }

            @Override
            public void release(InferenceResponse result, Throwable thrown) {
                BlockingRetryTests.this.released.add(result.output() + " for " + thrown.getMessage());
            }

            @Override
            public InferenceResponse succeeded(InferenceResponse result, int attempts) {
                return result.withAttempts(attempts);
            }
        };
    }

    private static AttemptEvent invoke(int attempt, @Nullable Throwable failure, boolean retryable) {
        return new AttemptEvent("chat", Operation.INVOKE, attempt, failure, retryable);
    }

    private static NetworkException reset() {
        return new NetworkException("connection reset", null);
    }

    private static RetryListener failingWithAnErrorOnSuccess() {
        return new RetryListener() {

            @Override
            public void attemptFinished(AttemptEvent event) {
                if (event.failure() == null) {
                    throw new AssertionError("listener broke");
                }
            }
        };
    }

    @Nested
    class Creation {

        @Test
        void followsTheDecisionsOfItsRetrier() {
            Retrier retrier = retrier(THREE_ATTEMPTS).build();

            assertThat(BlockingRetry.of(retrier).retrier()).isSameAs(retrier);
        }

        @Test
        void describesItselfByItsRetrierAndASleeperThatWaitsInRealTimeByDefault() {
            assertThat(BlockingRetry.of(retrier(THREE_ATTEMPTS).build())).hasToString("BlockingRetry[retrier="
                    + "Retrier[name=chat, policy=" + THREE_ATTEMPTS + "], sleeper=Sleeper.system()]");
        }

        @Test
        void refusesNullArguments() {
            Retrier retrier = retrier(THREE_ATTEMPTS).build();
            BlockingRetry blocking = BlockingRetry.of(retrier);

            CallContext background = CallContext.background();

            assertThatNullPointerException().isThrownBy(() -> BlockingRetry.of(null))
                .withMessage("retrier must not be null");
            assertThatNullPointerException().isThrownBy(() -> blocking.call(null, background, scripted()))
                .withMessage("operation must not be null");
            assertThatNullPointerException().isThrownBy(() -> blocking.call(Operation.INVOKE, null, scripted()))
                .withMessage("context must not be null");
            assertThatNullPointerException().isThrownBy(() -> blocking.call(Operation.INVOKE, background, null))
                .withMessage("attempts must not be null");
        }
    }

    @Nested
    class FirstAttempt {

        @Test
        void returnsAFirstSuccessWithoutWaiting() {
            BlockingRetryTests.this.inner.thenRespond("hello");

            InferenceResponse response = blocking().call(Operation.INVOKE, CallContext.background(), attempts());

            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(1);
            assertThat(BlockingRetryTests.this.listener.calls()).containsExactly(new Finished(invoke(1, null, false)));
            assertThat(BlockingRetryTests.this.sleeper.delays()).isEmpty();
        }

        @Test
        void failsWithTheContextsFailureWithoutAnAttemptWhenTheContextIsDone() {
            CallContext context = CallContext.cancellable();
            context.cancel();

            assertThatExceptionOfType(CancellationException.class)
                .isThrownBy(() -> blocking().call(Operation.INVOKE, context, scripted()))
                .withMessage("The call was cancelled");
            assertThat(BlockingRetryTests.this.attemptNumbers).isEmpty();
            assertThat(BlockingRetryTests.this.listener.calls()).isEmpty();
        }

        @Test
        void waitsForACooldownInForceBeforeTheFirstAttempt() {
            LocalCooldownStore store = LocalCooldownStore.withClock(
                    () -> Duration.between(MutableClock.START, BlockingRetryTests.this.clock.instant()).toNanos());
            store.coolDown("openai", Duration.ofSeconds(2));
            BlockingRetryTests.this.inner.thenRespond("hello");

            blocking(retrier(THREE_ATTEMPTS).cooldown(store, "openai")).call(Operation.INVOKE, CallContext.background(),
                    scripted());

            assertThat(BlockingRetryTests.this.sleeper.delays()).containsExactly(Duration.ofSeconds(2));
            assertThat(BlockingRetryTests.this.listener.calls()).containsExactly(
                    new Delayed(new CooldownEvent("chat", Operation.INVOKE, 1, "openai", Duration.ofSeconds(2))),
                    new Finished(invoke(1, null, false)));
        }

        @Test
        void observesTheFirstAttemptWhenTheRetrierHasAnObserver() {
            List<String> seen = new ArrayList<>();
            AttemptObserver observer = (client, operation, attempt) -> {
                seen.add("started #" + attempt + " after " + BlockingRetryTests.this.attemptNumbers.size());
                return (outcome, retryDelay) -> seen.add("ended #" + outcome.attempt());
            };
            BlockingRetryTests.this.inner.thenRespond("hello");

            blocking(retrier(THREE_ATTEMPTS).observer(observer)).call(Operation.INVOKE, CallContext.background(),
                    scripted());

            assertThat(seen).containsExactly("started #1 after 0", "ended #1");
        }
    }

    @Nested
    class Retries {

        @Test
        void numbersTheAttemptsItMakes() {
            BlockingRetryTests.this.inner.thenFail(reset(), reset()).thenRespond("hello");

            blocking().call(Operation.INVOKE, CallContext.background(), scripted());

            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1, 2, 3);
        }

        @Test
        void waitsTheBackoffDelayBeforeEachRetry() {
            BlockingRetryTests.this.inner.thenFail(reset(), reset()).thenRespond("hello");

            blocking().call(Operation.INVOKE, CallContext.background(), scripted());

            assertThat(BlockingRetryTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100),
                    Duration.ofMillis(200));
        }

        @Test
        void returnsWhatTheCallerMakesOfTheSuccessGivenTheNumberOfAttempts() {
            BlockingRetryTests.this.inner.thenFail(reset(), reset()).thenRespond("hello");

            InferenceResponse response = blocking().call(Operation.INVOKE, CallContext.background(), attempts());

            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(3);
        }

        @Test
        void rethrowsAPermanentFailureAsTheAttemptThrewIt() {
            BlockingRetryTests.this.inner.thenFail(reset(), REFUSED);

            assertThat(catchThrowable(() -> blocking().call(Operation.INVOKE, CallContext.background(), scripted())))
                .isSameAs(REFUSED);
            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1, 2);
        }

        @Test
        void throwsExhaustedAfterTheLastAttemptAllowed() {
            NetworkException first = reset();
            NetworkException second = reset();
            NetworkException last = reset();
            BlockingRetryTests.this.inner.thenFail(first, second, last);

            Throwable thrown = catchThrowable(
                    () -> blocking().call(Operation.INVOKE, CallContext.background(), scripted()));

            assertThat(thrown).isInstanceOf(ExhaustedException.class).hasCause(last);
            assertThat(thrown.getSuppressed()).containsExactly(first, second);
        }

        @Test
        void waitsForTheLaterOfTheBackoffAndACooldownThatBeganMeanwhile() {
            LocalCooldownStore store = LocalCooldownStore.withClock(
                    () -> Duration.between(MutableClock.START, BlockingRetryTests.this.clock.instant()).toNanos());
            BlockingRetryTests.this.inner.then((context) -> {
                store.coolDown("openai", Duration.ofSeconds(3));
                throw reset();
            }).thenRespond("hello");

            blocking(retrier(THREE_ATTEMPTS).cooldown(store, "openai")).call(Operation.INVOKE, CallContext.background(),
                    scripted());

            assertThat(BlockingRetryTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100),
                    Duration.ofMillis(2900));
        }
    }

    @Nested
    class TypedFailures {

        /** What a client library throws for a 503. */
        private final IllegalStateException libraryFailure = new IllegalStateException("503 from the library");

        private final HttpStatusException typed = new HttpStatusException(503, "overloaded", null);

        /** Attempts whose library failure stands for a typed 503, and whose caller gets a wrapper for it. */
        private BlockingRetry.Attempts<InferenceResponse, RuntimeException> translating() {
            return new BlockingRetry.Attempts<>() {

                @Override
                public InferenceResponse attempt(int attempt) {
                    return scripted().attempt(attempt);
                }

                @Override
                public RuntimeException failureOf(RuntimeException thrown) {
                    return (thrown == TypedFailures.this.libraryFailure) ? TypedFailures.this.typed : thrown;
                }

                @Override
                public RuntimeException thrownFor(RuntimeException failure) {
                    return new IllegalStateException("as the library throws it", failure);
                }
            };
        }

        @Test
        void classifiesAndReportsTheFailureThatStandsForWhatTheAttemptThrew() {
            BlockingRetryTests.this.inner.thenFail(this.libraryFailure).thenRespond("hello");

            blocking().call(Operation.INVOKE, CallContext.background(), translating());

            assertThat(BlockingRetryTests.this.listener.calls()).first()
                .isEqualTo(new Finished(invoke(1, this.typed, true)));
            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1, 2);
        }

        @Test
        void throwsWhatTheCallerMakesOfTheFailureTheCallGaveUpWith() {
            BlockingRetryTests.this.inner.thenFail(REFUSED);

            assertThat(catchThrowable(() -> blocking().call(Operation.INVOKE, CallContext.background(), translating())))
                .hasMessage("as the library throws it")
                .hasCause(REFUSED);
        }

        @Test
        void throwsTheFailureThatEndsAWaitAsItIs() {
            CallContext context = CallContext.cancellable();
            BlockingRetryTests.this.inner.thenFail(reset());
            BlockingRetry blocking = BlockingRetry.of(retrier(THREE_ATTEMPTS)
                .sleeper((delay, waiting) -> context.cancel())
                .build());

            assertThat(catchThrowable(() -> blocking.call(Operation.INVOKE, context, translating())))
                .isInstanceOf(CancellationException.class)
                .hasMessage("The call was cancelled");
        }
    }

    @Nested
    class HandingBack {

        @Test
        void returnsAResultThatStandsForAPermanentFailureAsItCameOnceTheListenersHeardOfIt() {
            InferenceResponse refused = InferenceResponse.of("refused");
            BlockingRetryTests.this.inner.then((context) -> refused);

            InferenceResponse response = blocking().call(Operation.INVOKE, CallContext.background(), attempts());

            assertThat(response).isSameAs(refused);
            assertThat(BlockingRetryTests.this.listener.calls())
                .containsExactly(new Finished(invoke(1, REFUSED, false)));
        }

        @Test
        void handsBackTheResultOfALaterAttempt() {
            NetworkException reset = reset();
            BlockingRetryTests.this.inner.thenFail(reset).thenRespond("refused");

            InferenceResponse response = blocking().call(Operation.INVOKE, CallContext.background(), attempts());

            assertThat(response.output()).isEqualTo("refused");
            assertThat(BlockingRetryTests.this.listener.calls()).containsExactly(new Finished(invoke(1, reset, true)),
                    new Scheduled(invoke(1, reset, true), Duration.ofMillis(100)),
                    new Finished(invoke(2, REFUSED, false)));
        }

        @Test
        void releasesAResultHandedBackWhenAListenerFailsWithAnError() {
            BlockingRetryTests.this.inner.thenRespond("refused");
            RetryListener failing = new RetryListener() {

                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw new AssertionError("listener broke");
                }
            };

            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> blocking(retrier(THREE_ATTEMPTS).listener(failing)).call(Operation.INVOKE,
                        CallContext.background(), attempts()))
                .withMessage("listener broke");
            assertThat(BlockingRetryTests.this.released).containsExactly("refused for listener broke");
        }
    }

    @Nested
    class Releasing {

        @Test
        void releasesTheFirstAttemptsResultWhenAListenerFailsWithAnError() {
            BlockingRetryTests.this.inner.thenRespond("hello");
            BlockingRetry blocking = blocking(retrier(THREE_ATTEMPTS).listener(failingWithAnErrorOnSuccess()));

            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> blocking.call(Operation.INVOKE, CallContext.background(), attempts()));
            assertThat(BlockingRetryTests.this.released).containsExactly("hello for listener broke");
        }

        @Test
        void releasesALaterAttemptsResultWhenAListenerFailsWithAnError() {
            BlockingRetryTests.this.inner.thenFail(reset()).thenRespond("hello");
            BlockingRetry blocking = blocking(retrier(THREE_ATTEMPTS).listener(failingWithAnErrorOnSuccess()));

            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> blocking.call(Operation.INVOKE, CallContext.background(), attempts()));
            assertThat(BlockingRetryTests.this.released).containsExactly("hello for listener broke");
        }
    }

    @Nested
    class EndingUntold {

        @Test
        void letsAnErrorOfAnAttemptPropagateUntold() {
            AssertionError broken = new AssertionError("attempt broke");
            BlockingRetryTests.this.inner.thenFail(reset(), broken);

            assertThat(catchThrowable(() -> blocking().call(Operation.INVOKE, CallContext.background(), scripted())))
                .isSameAs(broken);
            assertThat(BlockingRetryTests.this.listener.calls()).hasSize(2);
        }

        @Test
        void letsACheckedExceptionOfAnAttemptPropagateUntold() {
            IOException unreadable = new IOException("unreadable");
            BlockingRetry.Attempts<String, IOException> attempts = (attempt) -> {
                throw unreadable;
            };

            assertThat(catchThrowable(() -> blocking().call(Operation.INVOKE, CallContext.background(), attempts)))
                .isSameAs(unreadable);
            assertThat(BlockingRetryTests.this.listener.calls()).isEmpty();
        }
    }

    @Nested
    class Waits {

        private final ShutdownSignal signal = ShutdownSignal.create();

        /** Fires the signal when a retry is scheduled: before the wait begins. */
        private Retrier.Builder shuttingDownWhenScheduled() {
            return retrier(HOUR_LONG_WAIT).shutdownSignal(this.signal).listener(new RetryListener() {

                @Override
                public void retryScheduled(AttemptEvent failed, Duration delay) {
                    Waits.this.signal.shutDown();
                }
            });
        }

        @Test
        void endsTheCallWhenInterruptedDuringAWaitAndRestoresTheInterruptStatus() {
            NetworkException reset = reset();
            BlockingRetryTests.this.inner.thenFail(reset).thenRespond("never asked");
            BlockingRetry blocking = BlockingRetry.of(retrier(THREE_ATTEMPTS).sleeper((delay, context) -> {
                throw new InterruptedException();
            }).build());
            Throwable thrown;
            boolean interruptedAfterwards;
            try {
                thrown = catchThrowable(() -> blocking.call(Operation.INVOKE, CallContext.background(), scripted()));
            }
            finally {
                interruptedAfterwards = Thread.interrupted();
            }

            assertThat(thrown).isInstanceOf(CancellationException.class)
                .hasMessage("Interrupted during the PT0.1S wait before attempt 2")
                .hasCauseInstanceOf(InterruptedException.class);
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(interruptedAfterwards).isTrue();
            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1);
        }

        @Test
        void endsTheCallWhenTheContextIsCancelledDuringAWait() {
            CallContext context = CallContext.cancellable();
            NetworkException reset = reset();
            BlockingRetryTests.this.inner.thenFail(reset).thenRespond("never asked");
            BlockingRetry blocking = BlockingRetry.of(retrier(THREE_ATTEMPTS)
                .sleeper((delay, waiting) -> waiting.cancel())
                .build());

            assertThat(catchThrowable(() -> blocking.call(Operation.INVOKE, context, scripted())))
                .isInstanceOf(CancellationException.class)
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(reset));
            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1);
        }

        @Test
        @Timeout(30)
        void waitsOnTheShutdownSignalWithTheSystemSleeper() {
            BlockingRetryTests.this.inner.thenFail(reset()).thenRespond("never asked");
            BlockingRetry blocking = BlockingRetry.of(shuttingDownWhenScheduled().build());

            assertThatExceptionOfType(ShutdownException.class)
                .isThrownBy(() -> blocking.call(Operation.INVOKE, CallContext.background(), scripted()))
                .withMessage("The application is shutting down: the wait before attempt 2 was ended");
            assertThat(BlockingRetryTests.this.attemptNumbers).containsExactly(1);
        }

        @Test
        void seesTheShutdownWhenASleeperOfItsOwnReturns() {
            BlockingRetryTests.this.inner.thenFail(reset()).thenRespond("never asked");

            assertThatExceptionOfType(ShutdownException.class)
                .isThrownBy(() -> blocking(shuttingDownWhenScheduled()).call(Operation.INVOKE,
                        CallContext.background(), scripted()));
            assertThat(BlockingRetryTests.this.sleeper.delays()).containsExactly(Duration.ofHours(1));
        }

        @Test
        @Timeout(30)
        void waitsInRealTimeWithTheSystemSleeperAndNoShutdownSignal() {
            BlockingRetryTests.this.inner.thenFail(reset()).thenRespond("hello");
            Policy oneMillisecond = new Policy(0, Duration.ofMillis(1), 2, Duration.ofMillis(1));
            BlockingRetry blocking = BlockingRetry.of(
                    Retrier.builder(oneMillisecond).random(FixedRandom.noJitter()).build());
            long start = System.nanoTime();

            InferenceResponse response = blocking.call(Operation.INVOKE, CallContext.background(), scripted());

            assertThat(response.output()).isEqualTo("hello");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1));
        }
    }
}
