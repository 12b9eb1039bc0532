package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.CapturedLog;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.RecordingListener.Exhausted;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.ScriptedReader;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

class RetryClientTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, 100 ms, 200 ms, 400 ms between its five attempts. */
    private static final Policy FIVE_ATTEMPTS = new Policy(2, Duration.ofMillis(100), 5, Duration.ofSeconds(1));

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    /** Waits an hour, so that only a cancellation can end the wait. */
    private static final Policy HOUR_LONG_WAIT = new Policy(1, Duration.ofHours(1), 2, Duration.ofHours(1));

    /** Keeps the warnings about listeners that throw, which some tests provoke, off the console. */
    @RegisterExtension
    final CapturedLog log = CapturedLog.of(RetryClient.class);

    private final ScriptedClient inner = ScriptedClient.script();

    private final RecordingListener listener = new RecordingListener();

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    /** A client named "chat" that waits in virtual time with a jitter factor of exactly 1. */
    private RetryClient retrying(Policy policy) {
        return client(builder(policy));
    }

    private Retrier.Builder builder(Policy policy) {
        return Retrier.builder(policy)
            .name("chat")
            .listener(this.listener)
            .sleeper(this.sleeper)
            .random(FixedRandom.noJitter());
    }

    private RetryClient client(Retrier.Builder retrier) {
        return RetryClient.of(this.inner, retrier.build());
    }

    private static AttemptEvent invoke(int attempt, Throwable failure, boolean retryable) {
        return new AttemptEvent("chat", Operation.INVOKE, attempt, failure, retryable);
    }

    private static AttemptEvent stream(int attempt, Throwable failure, boolean retryable) {
        return new AttemptEvent("chat", Operation.STREAM, attempt, failure, retryable);
    }

    private static HttpStatusException status(int status) {
        return new HttpStatusException(status, "HTTP " + status, null);
    }

    private static NetworkException reset() {
        return new NetworkException("connection reset", null);
    }

    @Nested
    class Creation {

        @Test
        void createsAClientNamedDefault() {
            RetryClient client = RetryClient.create(RetryClientTests.this.inner, FIVE_ATTEMPTS);
            assertThat(client.name()).isEqualTo("default");
            assertThat(client.inner()).isSameAs(RetryClientTests.this.inner);
            assertThat(client.policy()).isSameAs(FIVE_ATTEMPTS);
        }

        @Test
        void takesTheBuildersName() {
            assertThat(retrying(FIVE_ATTEMPTS).name()).isEqualTo("chat");
        }

        @Test
        void describesItselfByNamePolicyAndInner() {
            assertThat(retrying(THREE_ATTEMPTS)).hasToString("RetryClient[name=chat, policy=Policy[stableRetries=1, "
                    + "stableDelay=PT0.1S, maxAttempts=3, maxDelay=PT1S], inner=ScriptedClient]");
        }

        @Test
        void refusesANullInner() {
            assertThatNullPointerException().isThrownBy(() -> RetryClient.create(null, FIVE_ATTEMPTS))
                .withMessage("inner must not be null");
        }

        @Test
        void refusesANullPolicy() {
            assertThatNullPointerException().isThrownBy(() -> RetryClient.create(RetryClientTests.this.inner, null))
                .withMessage("policy must not be null");
        }

        @Test
        void retriesWithTheRetrierItIsMadeOf() {
            Retrier retrier = builder(FIVE_ATTEMPTS).build();

            RetryClient client = RetryClient.of(RetryClientTests.this.inner, retrier);

            assertThat(client.retrier()).isSameAs(retrier);
            assertThat(client.inner()).isSameAs(RetryClientTests.this.inner);
            assertThat(client.name()).isEqualTo("chat");
            assertThat(client.policy()).isSameAs(FIVE_ATTEMPTS);
        }

        @Test
        void refusesToBeMadeOfANullInnerOrRetrier() {
            Retrier retrier = builder(FIVE_ATTEMPTS).build();

            assertThatNullPointerException().isThrownBy(() -> RetryClient.of(null, retrier))
                .withMessage("inner must not be null");
            assertThatNullPointerException().isThrownBy(() -> RetryClient.of(RetryClientTests.this.inner, null))
                .withMessage("retrier must not be null");
        }

        @Test
        void refusesABlankName() {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryClient.builder(RetryClientTests.this.inner, FIVE_ATTEMPTS).name(" "))
                .withMessage("name must not be blank");
        }

        @Test
        void refusesNullCollaborators() {
            RetryClient.Builder builder = RetryClient.builder(RetryClientTests.this.inner, FIVE_ATTEMPTS);
            assertThatNullPointerException().isThrownBy(() -> builder.name(null)).withMessage("name must not be null");
            assertThatNullPointerException().isThrownBy(() -> builder.listener(null))
                .withMessage("listener must not be null");
            assertThatNullPointerException().isThrownBy(() -> builder.random(null)).withMessage("random must not be null");
        }

        @Test
        void keepsNoReferenceToTheBuildersListeners() {
            RetryClient.Builder builder = RetryClient.builder(RetryClientTests.this.inner, THREE_ATTEMPTS);
            RetryClient client = builder.build();
            RecordingListener late = new RecordingListener();
            builder.listener(late);
            RetryClientTests.this.inner.thenRespond("hello");
            client.invoke(REQUEST);
            assertThat(late.calls()).isEmpty();
        }

        @Test
        void refusesANullRequest() {
            assertThatNullPointerException().isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(null))
                .withMessage("request must not be null");
        }

        @Test
        void refusesANullContext() {
            assertThatNullPointerException().isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, null))
                .withMessage("context must not be null");
        }
    }

    @Nested
    class Invoke {

        @Test
        void returnsAFirstSuccessStampedWithOneAttempt() {
            RetryClientTests.this.inner.thenRespond("hello");
            InferenceResponse response = retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(1);
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
        }

        @Test
        void retriesA503AndAConnectionResetThenStampsThreeAttempts() {
            RetryClientTests.this.inner.thenFail(status(503), reset()).thenRespond("hello");
            InferenceResponse response = retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(3);
        }

        @Test
        void passesTheSameRequestAndContextObjectsToEveryAttempt() {
            CallContext context = CallContext.cancellable();
            RetryClientTests.this.inner.thenFail(status(429), status(500)).thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST, context);
            assertThat(RetryClientTests.this.inner.requests()).hasSize(3).allSatisfy((r) -> assertThat(r).isSameAs(REQUEST));
            assertThat(RetryClientTests.this.inner.contexts()).hasSize(3)
                .allSatisfy((c) -> assertThat(c).isSameAs(context));
        }

        @Test
        void passesTheBackgroundContextForTheOneArgumentCall() {
            RetryClientTests.this.inner.thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.inner.contexts()).containsExactly(CallContext.background());
        }

        @Test
        void waitsTheBackoffScheduleBetweenAttempts() {
            RetryClientTests.this.inner.thenFail(reset(), reset(), reset(), reset()).thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100),
                    Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        }

        @Test
        void rethrowsAPermanentFailureAsTheSameInstance() {
            HttpStatusException unauthorized = status(401);
            RetryClientTests.this.inner.thenFail(status(503), unauthorized);
            Throwable thrown = catchThrowable(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST));
            assertThat(thrown).isSameAs(unauthorized);
            assertThat(thrown.getSuppressed()).isEmpty();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(2);
        }

        @Test
        void rethrowsAnUntypedFailureAsTheSameInstance() {
            IllegalStateException bug = new IllegalStateException("bug in the transport");
            RetryClientTests.this.inner.thenFail(bug);
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST))).isSameAs(bug);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void givesUpAfterMaxAttemptsWithTheFinalFailureAsCause() {
            HttpStatusException first = status(503);
            NetworkException second = reset();
            HttpStatusException last = status(502);
            RetryClientTests.this.inner.thenFail(first, second, last);
            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> retrying(THREE_ATTEMPTS).invoke(REQUEST))
                .withMessage("Gave up after 3 attempts: dev.inference.failure.HttpStatusException: HTTP 502")
                .satisfies((ex) -> {
                    assertThat(ex.attempts()).isEqualTo(3);
                    assertThat(ex.getCause()).isSameAs(last);
                    assertThat(ex.getSuppressed()).containsExactly(first, second);
                });
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(3);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
        }

        @Test
        void givesUpAfterASingleAttemptWhenMaxAttemptsIsOne() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> retrying(new Policy(0, Duration.ofSeconds(1), 1, Duration.ofSeconds(1))).invoke(REQUEST))
                .withMessage("Gave up after 1 attempt: dev.inference.failure.NetworkException: connection reset")
                .satisfies((ex) -> assertThat(ex.getCause()).isSameAs(reset));
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
        }

        @Test
        void retriesUnderAPolicyOfIntegerMaxValueAttempts() {
            RetryClientTests.this.inner.thenFail(reset(), reset()).thenRespond("hello");
            Policy unbounded = new Policy(0, Duration.ofMillis(1), Integer.MAX_VALUE, Duration.ofMillis(1));
            assertThat(retrying(unbounded).invoke(REQUEST).attempts()).isEqualTo(3);
        }

        @Test
        void honoursALongerRetryAfterInTheScheduledDelay() {
            HttpStatusException throttled = new HttpStatusException(429, "slow down", Duration.ofSeconds(3));
            RetryClientTests.this.inner.thenFail(throttled).thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofSeconds(3));
            assertThat(RetryClientTests.this.listener.calls()).contains(new Scheduled(invoke(1, throttled, true),
                    Duration.ofSeconds(3)));
        }

        @Test
        void honoursTheRetryAfterOfAWrapped503() {
            RuntimeException wrapped = new RuntimeException("transport failed",
                    new HttpStatusException(503, "unavailable", Duration.ofSeconds(2)));
            RetryClientTests.this.inner.thenFail(wrapped).thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofSeconds(2));
        }

        @Test
        void capsTheRetryAfterAtFiveMinutes() {
            RetryClientTests.this.inner.thenFail(new HttpStatusException(503, "unavailable", Duration.ofDays(1)))
                .thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofMinutes(5));
        }

        @Test
        void scalesTheSlotByTheSmallestJitter() {
            RetryClientTests.this.inner.thenFail(reset()).thenRespond("hello");
            client(builder(FIVE_ATTEMPTS).random(FixedRandom.always(0.0))).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(90));
        }

        @Test
        void keepsTheJitterBelowItsExclusiveBoundForTheLargestRandomDouble() {
            RetryClientTests.this.inner.thenFail(reset()).thenRespond("hello");
            client(builder(FIVE_ATTEMPTS).random(FixedRandom.always(Math.nextDown(1.0)))).invoke(REQUEST);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofNanos(109_999_999));
        }

        @Test
        void refusesANullResponseWithoutRetrying() {
            RetryClientTests.this.inner.then((context) -> null);
            assertThatNullPointerException().isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST))
                .withMessage("The inner InferenceClient returned null from invoke");
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void doesNotMultiplyAttemptsWhenNested() {
            RetryClientTests.this.inner.thenFail(reset(), reset(), reset());
            RetryClient nested = RetryClient.of(retrying(THREE_ATTEMPTS), Retrier.builder(THREE_ATTEMPTS)
                .sleeper(RetryClientTests.this.sleeper)
                .build());
            Throwable thrown = catchThrowable(() -> nested.invoke(REQUEST));
            assertThat(thrown).isInstanceOf(ExhaustedException.class);
            assertThat(((ExhaustedException) thrown).attempts()).isEqualTo(3);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(3);
        }

        @Test
        void doesNotMultiplyAttemptsWhenNestedThroughCreate() {
            RetryClientTests.this.inner.thenFail(reset(), reset(), reset());
            Policy instant = new Policy(0, Duration.ofNanos(1), 3, Duration.ofNanos(1));
            RetryClient nested = RetryClient.create(RetryClient.create(RetryClientTests.this.inner, instant), instant);
            assertThatExceptionOfType(ExhaustedException.class).isThrownBy(() -> nested.invoke(REQUEST));
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(3);
        }

        @Test
        void letsAnErrorOfTheInnerClientPropagateUntouched() {
            StackOverflowError error = new StackOverflowError("deep");
            RetryClientTests.this.inner.thenFail(reset(), error);
            Throwable thrown = catchThrowable(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST));
            assertThat(thrown).isSameAs(error);
            assertThat(thrown.getSuppressed()).isEmpty();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(2);
        }
    }

    @Nested
    class Listeners {

        @Test
        void reportsEachAttemptEachScheduledWaitAndExhaustionInOrder() {
            HttpStatusException first = status(503);
            NetworkException second = reset();
            HttpStatusException last = status(429);
            RetryClientTests.this.inner.thenFail(first, second, last);
            ExhaustedException exhausted = catchThrowableOfType(() -> retrying(THREE_ATTEMPTS).invoke(REQUEST));
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(
                    new Finished(invoke(1, first, true)),
                    new Scheduled(invoke(1, first, true), Duration.ofMillis(100)),
                    new Finished(invoke(2, second, true)),
                    new Scheduled(invoke(2, second, true), Duration.ofMillis(200)),
                    new Finished(invoke(3, last, true)),
                    new Exhausted(invoke(3, last, true), exhausted));
        }

        @Test
        void reportsASuccessWithoutFailure() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenRespond("hello");
            retrying(FIVE_ATTEMPTS).invoke(REQUEST);
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(
                    new Finished(invoke(1, reset, true)),
                    new Scheduled(invoke(1, reset, true), Duration.ofMillis(100)),
                    new Finished(new AttemptEvent("chat", Operation.INVOKE, 2, null, false)));
        }

        @Test
        void reportsAPermanentFailureAndNothingMore() {
            HttpStatusException forbidden = status(403);
            RetryClientTests.this.inner.thenFail(forbidden);
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST))).isSameAs(forbidden);
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(new Finished(invoke(1, forbidden, false)));
        }

        @Test
        void reportsAnInnerExhaustionAsAPermanentFailure() {
            ExhaustedException innerExhausted = new ExhaustedException(3, reset());
            RetryClientTests.this.inner.thenFail(innerExhausted);
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST))).isSameAs(innerExhausted);
            assertThat(RetryClientTests.this.listener.calls())
                .containsExactly(new Finished(invoke(1, innerExhausted, false)));
        }

        @Test
        void tellsListenersInTheOrderTheyWereAdded() {
            List<Map.Entry<String, Object>> calls = new CopyOnWriteArrayList<>();
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenRespond("hello");
            RetryClient.of(RetryClientTests.this.inner, Retrier.builder(FIVE_ATTEMPTS)
                .listener(new NamedListener("first", calls))
                .listener(new NamedListener("second", calls))
                .sleeper(RetryClientTests.this.sleeper)
                .random(FixedRandom.noJitter())
                .build())
                .invoke(REQUEST);
            AttemptEvent failed = new AttemptEvent("default", Operation.INVOKE, 1, reset, true);
            AttemptEvent succeeded = new AttemptEvent("default", Operation.INVOKE, 2, null, false);
            assertThat(calls).containsExactly(Map.entry("first", new Finished(failed)),
                    Map.entry("second", new Finished(failed)),
                    Map.entry("first", new Scheduled(failed, Duration.ofMillis(100))),
                    Map.entry("second", new Scheduled(failed, Duration.ofMillis(100))),
                    Map.entry("first", new Finished(succeeded)), Map.entry("second", new Finished(succeeded)));
        }

        @Test
        void containsAListenerThatThrowsAndStillTellsTheListenersAfterIt() {
            IllegalStateException broken = new IllegalStateException("listener is broken");
            RetryListener throwing = new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw broken;
                }

                @Override
                public void retryScheduled(AttemptEvent failed, Duration delay) {
                    throw broken;
                }

                @Override
                public void exhausted(AttemptEvent last, ExhaustedException exception) {
                    throw broken;
                }
            };
            NetworkException first = reset();
            NetworkException last = reset();
            RetryClientTests.this.inner.thenFail(first, last);
            RetryClient client = RetryClient.of(RetryClientTests.this.inner,
                    Retrier.builder(new Policy(0, Duration.ofMillis(100), 2, Duration.ofMillis(100)))
                .name("chat")
                .listener(throwing)
                .listener(RetryClientTests.this.listener)
                .sleeper(RetryClientTests.this.sleeper)
                .random(FixedRandom.noJitter())
                .build());
            ExhaustedException exhausted = catchThrowableOfType(() -> client.invoke(REQUEST));
            assertThat(exhausted.getCause()).isSameAs(last);
            assertThat(exhausted.getSuppressed()).containsExactly(first);
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(
                    new Finished(invoke(1, first, true)),
                    new Scheduled(invoke(1, first, true), Duration.ofMillis(100)),
                    new Finished(invoke(2, last, true)),
                    new Exhausted(invoke(2, last, true), exhausted));
            assertThat(RetryClientTests.this.log.records()).hasSize(4)
                .allSatisfy((record) -> assertThat(record.getThrown()).isSameAs(broken));
        }

        @Test
        void returnsTheSameResultWhenAListenerThrows() {
            RetryListener throwing = new RetryListener() {
                @Override
                public void attemptFinished(AttemptEvent event) {
                    throw new IllegalStateException("listener is broken");
                }
            };
            RetryClientTests.this.inner.thenFail(status(503)).thenRespond("hello");
            InferenceResponse response = client(builder(FIVE_ATTEMPTS).listener(throwing)).invoke(REQUEST);
            assertThat(response).isEqualTo(InferenceResponse.of("hello").withAttempts(2));
        }

        @Test
        void letsAnErrorOfAListenerPropagateUntouched() {
            AssertionError error = new AssertionError("listener failed hard");
            RetryListener failing = new RetryListener() {
                @Override
                public void retryScheduled(AttemptEvent failed, Duration delay) {
                    throw error;
                }
            };
            RetryClientTests.this.inner.thenFail(reset());
            Throwable thrown = catchThrowable(() -> client(builder(FIVE_ATTEMPTS).listener(failing)).invoke(REQUEST));
            assertThat(thrown).isSameAs(error);
            assertThat(thrown.getSuppressed()).isEmpty();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
        }
    }

    @Nested
    class Cancellation {

        @Test
        void failsBeforeTheFirstAttemptWhenAlreadyCancelled() {
            CallContext context = CallContext.cancellable();
            context.cancel();
            assertThatExceptionOfType(CancellationException.class)
                .isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, context))
                .withMessage("The call was cancelled")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).isEmpty());
            assertThat(RetryClientTests.this.inner.attempts()).isZero();
            assertThat(RetryClientTests.this.listener.calls()).isEmpty();
        }

        @Test
        void schedulesNoRetryWhenCancelledDuringTheAttempt() {
            CallContext context = CallContext.cancellable();
            NetworkException reset = reset();
            RetryClientTests.this.inner.then((c) -> {
                c.cancel();
                throw reset;
            });
            assertThatExceptionOfType(CancellationException.class)
                .isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, context))
                .withMessage("The call was cancelled")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(reset));
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(new Finished(invoke(1, reset, true)));
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
        }

        @Test
        void makesNoFurtherAttemptWhenCancelledDuringTheWait() {
            CallContext context = CallContext.cancellable();
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            RetryClient client = client(builder(FIVE_ATTEMPTS).sleeper((delay, c) -> c.cancel()));
            assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> client.invoke(REQUEST, context))
                .withMessage("The call was cancelled")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(reset));
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        @Timeout(30)
        void wakesAWaitingCallerWhenAnotherThreadCancels() throws Exception {
            CallContext context = CallContext.cancellable();
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            CountDownLatch scheduled = new CountDownLatch(1);
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .listener(countingDown(scheduled))
                .sleeper(Sleeper.system())
                .build());
            Caller caller = Caller.start(() -> client.invoke(REQUEST, context));
            scheduled.await();
            caller.awaitParked();
            context.cancel();
            Throwable thrown = caller.outcome().get();
            assertThat(thrown).isInstanceOf(CancellationException.class).hasMessage("The call was cancelled");
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void endsTheCallWhenTheThreadWasInterruptedAndRestoresTheFlag() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .sleeper(Sleeper.system())
                .random(FixedRandom.noJitter())
                .build());
            Thread.currentThread().interrupt();
            Throwable thrown;
            boolean interruptedAfterwards;
            try {
                thrown = catchThrowable(() -> client.invoke(REQUEST, CallContext.cancellable()));
            }
            finally {
                interruptedAfterwards = Thread.interrupted();
            }
            assertThat(thrown).isInstanceOf(CancellationException.class)
                .hasMessage("Interrupted during the PT1H wait before attempt 2")
                .hasCauseInstanceOf(InterruptedException.class);
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(interruptedAfterwards).isTrue();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void endsTheCallWhenInterruptedDuringABackgroundWait() {
            RetryClientTests.this.inner.thenFail(reset());
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .sleeper(Sleeper.system())
                .random(FixedRandom.noJitter())
                .build());
            Thread.currentThread().interrupt();
            Throwable thrown;
            boolean interruptedAfterwards;
            try {
                thrown = catchThrowable(() -> client.invoke(REQUEST));
            }
            finally {
                interruptedAfterwards = Thread.interrupted();
            }
            assertThat(thrown).isInstanceOf(CancellationException.class)
                .hasMessage("Interrupted during the PT1H wait before attempt 2");
            assertThat(interruptedAfterwards).isTrue();
        }

        @Test
        @Timeout(30)
        void wakesAWaitingCallerWhenAnotherThreadInterruptsIt() throws Exception {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            CountDownLatch scheduled = new CountDownLatch(1);
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .listener(countingDown(scheduled))
                .sleeper(Sleeper.system())
                .random(FixedRandom.noJitter())
                .build());
            Caller caller = Caller.start(() -> client.invoke(REQUEST, CallContext.cancellable()));
            scheduled.await();
            caller.awaitParked();
            caller.thread().interrupt();
            Throwable thrown = caller.outcome().get();
            assertThat(thrown).isInstanceOf(CancellationException.class)
                .hasMessage("Interrupted during the PT1H wait before attempt 2");
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(caller.interruptedAfterwards().get()).isTrue();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }
    }

    @Nested
    class Deadline {

        @Test
        void failsBeforeTheFirstAttemptWhenTheDeadlineHasPassed() {
            CallContext context = CallContext.withTimeout(Duration.ZERO, RetryClientTests.this.clock);
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, context))
                .withMessage("The call's deadline 2026-01-01T00:00:00Z has passed");
            assertThat(RetryClientTests.this.inner.attempts()).isZero();
        }

        @Test
        void failsAtOnceWithoutWaitingWhenTheDeadlineFallsInsideTheWait() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(150), RetryClientTests.this.clock);
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            RetryClient client = retrying(new Policy(0, Duration.ofMillis(100), 5, Duration.ofSeconds(1)));
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> client.invoke(REQUEST, context))
                .withMessage("The call's deadline would pass during the PT0.2S wait before attempt 2")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(reset));
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(new Finished(invoke(1, reset, true)));
        }

        @Test
        void failsAtOnceWhenTheDeadlineFallsExactlyAtTheEndOfTheWait() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(100), RetryClientTests.this.clock);
            RetryClientTests.this.inner.thenFail(reset());
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, context))
                .withMessage("The call's deadline would pass during the PT0.1S wait before attempt 2");
            assertThat(RetryClientTests.this.sleeper.delays()).isEmpty();
        }

        @Test
        void waitsWhenTheDeadlineFallsJustAfterTheWait() {
            CallContext context = CallContext.withTimeout(Duration.ofMillis(100).plusNanos(1), RetryClientTests.this.clock);
            RetryClientTests.this.inner.thenFail(reset()).thenRespond("hello");
            assertThat(retrying(FIVE_ATTEMPTS).invoke(REQUEST, context).attempts()).isEqualTo(2);
            assertThat(RetryClientTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
        }

        @Test
        void endsBeforeTheNextAttemptWhenTheDeadlinePassesDuringTheWait() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(1), RetryClientTests.this.clock);
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset);
            // The wait overruns its delay, as a suspended process or a busy machine can make it.
            RetryClient client = client(builder(FIVE_ATTEMPTS)
                .sleeper((delay, c) -> RetryClientTests.this.clock.advance(Duration.ofSeconds(2))));
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> client.invoke(REQUEST, context))
                .withMessage("The call's deadline 2026-01-01T00:00:01Z has passed")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(reset));
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void schedulesNoRetryWhenTheDeadlinePassedDuringTheAttempt() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(1), RetryClientTests.this.clock);
            NetworkException timedOut = new NetworkException("read timed out", null);
            RetryClientTests.this.inner.then((c) -> {
                RetryClientTests.this.clock.advance(Duration.ofSeconds(1));
                throw timedOut;
            });
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> retrying(FIVE_ATTEMPTS).invoke(REQUEST, context))
                .withMessage("The call's deadline 2026-01-01T00:00:01Z has passed")
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(timedOut));
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(new Finished(invoke(1, timedOut, true)));
        }

        @Test
        void keepsRetryingWithinTheDeadline() {
            CallContext context = CallContext.withTimeout(Duration.ofSeconds(1), RetryClientTests.this.clock);
            RetryClientTests.this.inner.thenFail(reset(), reset(), reset()).thenRespond("hello");
            assertThat(retrying(FIVE_ATTEMPTS).invoke(REQUEST, context).attempts()).isEqualTo(4);
            assertThat(RetryClientTests.this.clock.instant()).isEqualTo(MutableClock.START.plusMillis(400));
        }
    }

    @Nested
    class Stream {

        @Test
        void retriesEstablishmentAndStampsTheAttemptsOnTheResult() {
            RetryClientTests.this.inner.thenFail(status(503), reset()).thenOpen(ScriptedReader.completing("Hel", "lo"));
            try (StreamReader reader = retrying(FIVE_ATTEMPTS).stream(REQUEST)) {
                assertThat(reader.next()).isEqualTo(StreamEvent.of("Hel"));
                assertThat(reader.next()).isEqualTo(StreamEvent.of("lo"));
                assertThat(reader.hasNext()).isFalse();
                assertThat(reader.result()).isEqualTo(StreamResult.completed().withAttempts(3));
            }
        }

        @Test
        void passesTheSameRequestAndContextObjectsToEveryAttempt() {
            CallContext context = CallContext.cancellable();
            RetryClientTests.this.inner.thenFail(reset()).thenOpen(ScriptedReader.completing());
            retrying(FIVE_ATTEMPTS).stream(REQUEST, context).close();
            assertThat(RetryClientTests.this.inner.requests()).containsExactly(REQUEST, REQUEST)
                .allSatisfy((r) -> assertThat(r).isSameAs(REQUEST));
            assertThat(RetryClientTests.this.inner.contexts()).allSatisfy((c) -> assertThat(c).isSameAs(context))
                .hasSize(2);
        }

        @Test
        void reportsStreamAttempts() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenOpen(ScriptedReader.completing());
            retrying(FIVE_ATTEMPTS).stream(REQUEST).close();
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(
                    new Finished(stream(1, reset, true)),
                    new Scheduled(stream(1, reset, true), Duration.ofMillis(100)),
                    new Finished(new AttemptEvent("chat", Operation.STREAM, 2, null, false)));
        }

        @Test
        void neverRetriesAFailureInMidStream() {
            NetworkException dropped = new NetworkException("connection dropped mid-stream", null);
            RetryClientTests.this.inner.thenOpen(ScriptedReader.failingAfter(dropped, "Hel"));
            StreamReader reader = retrying(FIVE_ATTEMPTS).stream(REQUEST);
            assertThat(reader.next()).isEqualTo(StreamEvent.of("Hel"));
            assertThat(catchThrowable(reader::hasNext)).isSameAs(dropped);
            assertThat(reader.result()).isEqualTo(StreamResult.failed(dropped).withAttempts(1));
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
            assertThat(RetryClientTests.this.listener.calls())
                .containsExactly(new Finished(new AttemptEvent("chat", Operation.STREAM, 1, null, false)));
        }

        @Test
        void refusesAResultBeforeTheStreamHasEnded() {
            RetryClientTests.this.inner.thenOpen(ScriptedReader.completing("Hel"));
            StreamReader reader = retrying(FIVE_ATTEMPTS).stream(REQUEST);
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(reader::result)
                .withMessage("The stream has not ended yet");
        }

        @Test
        void closesTheInnerReaderWhenTheReturnedOneIsClosed() {
            ScriptedReader opened = ScriptedReader.completing("Hel");
            RetryClientTests.this.inner.thenOpen(opened);
            retrying(FIVE_ATTEMPTS).stream(REQUEST).close();
            assertThat(opened.closes()).isEqualTo(1);
        }

        @Test
        void closesTheEstablishedReaderWhenAListenerFailsWithAnError() {
            ScriptedReader established = ScriptedReader.completing("Hel");
            AssertionError error = new AssertionError("listener failed hard");
            RetryListener failing = throwingOnAttemptFinished(error);
            RetryClientTests.this.inner.thenOpen(established);
            Throwable thrown = catchThrowable(() -> client(builder(FIVE_ATTEMPTS).listener(failing)).stream(REQUEST));
            assertThat(thrown).isSameAs(error);
            assertThat(thrown.getSuppressed()).isEmpty();
            assertThat(established.closes()).isEqualTo(1);
        }

        @Test
        void closesAReaderEstablishedByALaterAttemptWhenAListenerFailsWithAnError() {
            ScriptedReader established = ScriptedReader.completing("Hel");
            AssertionError error = new AssertionError("listener failed hard");
            RetryListener failingOnSuccess = new RetryListener() {

                @Override
                public void attemptFinished(AttemptEvent event) {
                    if (event.failure() == null) {
                        throw error;
                    }
                }
            };
            RetryClientTests.this.inner.thenFail(reset()).thenOpen(established);
            Throwable thrown = catchThrowable(
                    () -> client(builder(FIVE_ATTEMPTS).listener(failingOnSuccess)).stream(REQUEST));
            assertThat(thrown).isSameAs(error);
            assertThat(established.closes()).isEqualTo(1);
        }

        @Test
        void addsTheCloseFailureOfAReaderReleasedForAnErrorAsSuppressed() {
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            AssertionError error = new AssertionError("listener failed hard");
            RetryListener failing = throwingOnAttemptFinished(error);
            RetryClientTests.this.inner.thenOpen(ScriptedReader.failingToClose(closeFailed));
            Throwable thrown = catchThrowable(() -> client(builder(FIVE_ATTEMPTS).listener(failing)).stream(REQUEST));
            assertThat(thrown).isSameAs(error);
            assertThat(thrown.getSuppressed()).containsExactly(closeFailed);
        }

        @Test
        void refusesANullReaderWithoutRetrying() {
            RetryClientTests.this.inner.then((context) -> null);
            assertThatNullPointerException().isThrownBy(() -> retrying(FIVE_ATTEMPTS).stream(REQUEST))
                .withMessage("The inner InferenceClient returned null from stream");
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }
    }

    @Nested
    class HalfOpenStream {

        @Test
        void closesTheReaderOnceBeforeTheNextAttempt() {
            ScriptedReader halfOpen = ScriptedReader.completing();
            RetryClientTests.this.inner
                .then((context) -> {
                    assertThat(halfOpen.closes()).isZero();
                    throw new HalfOpenStreamException(halfOpen, status(503));
                })
                .then((context) -> {
                    assertThat(halfOpen.closes()).isEqualTo(1);
                    return ScriptedReader.completing("Hel");
                });
            retrying(FIVE_ATTEMPTS).stream(REQUEST).close();
            assertThat(halfOpen.closes()).isEqualTo(1);
        }

        @Test
        void reportsTheCauseNotTheWrapper() {
            HttpStatusException unavailable = status(503);
            RetryClientTests.this.inner.thenFail(new HalfOpenStreamException(ScriptedReader.completing(), unavailable))
                .thenOpen(ScriptedReader.completing());
            retrying(FIVE_ATTEMPTS).stream(REQUEST).close();
            assertThat(RetryClientTests.this.listener.calls()).startsWith(new Finished(stream(1, unavailable, true)),
                    new Scheduled(stream(1, unavailable, true), Duration.ofMillis(100)));
        }

        @Test
        void throwsAPermanentCauseNotTheWrapperWithTheReaderClosed() {
            ScriptedReader halfOpen = ScriptedReader.completing();
            HttpStatusException unauthorized = status(401);
            RetryClientTests.this.inner.thenFail(new HalfOpenStreamException(halfOpen, unauthorized));
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).stream(REQUEST))).isSameAs(unauthorized);
            assertThat(unauthorized.getSuppressed()).isEmpty();
            assertThat(halfOpen.closes()).isEqualTo(1);
            assertThat(RetryClientTests.this.listener.calls()).containsExactly(new Finished(stream(1, unauthorized, false)));
        }

        @Test
        void closesEachReaderOnceWhenGivingUp() {
            ScriptedReader first = ScriptedReader.completing();
            ScriptedReader second = ScriptedReader.completing();
            ScriptedReader last = ScriptedReader.completing();
            HttpStatusException lastFailure = status(502);
            RetryClientTests.this.inner.thenFail(new HalfOpenStreamException(first, reset()),
                    new HalfOpenStreamException(second, reset()), new HalfOpenStreamException(last, lastFailure));
            ExhaustedException exhausted = catchThrowableOfType(() -> retrying(THREE_ATTEMPTS).stream(REQUEST));
            assertThat(exhausted.getCause()).isSameAs(lastFailure);
            assertThat(List.of(first.closes(), second.closes(), last.closes())).containsExactly(1, 1, 1);
        }

        @Test
        void addsACloseFailureAsSuppressedWhenGivingUp() {
            NetworkException firstFailure = reset();
            HttpStatusException lastFailure = status(503);
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            RetryClientTests.this.inner.thenFail(
                    new HalfOpenStreamException(ScriptedReader.failingToClose(closeFailed), firstFailure),
                    new HalfOpenStreamException(ScriptedReader.completing(), reset()),
                    new HalfOpenStreamException(ScriptedReader.completing(), lastFailure));
            ExhaustedException exhausted = catchThrowableOfType(() -> retrying(THREE_ATTEMPTS).stream(REQUEST));
            assertThat(exhausted.getCause()).isSameAs(lastFailure);
            assertThat(exhausted.getSuppressed()).hasSize(3).contains(firstFailure).endsWith(closeFailed);
        }

        @Test
        void addsACloseFailureAsSuppressedToAPermanentCause() {
            HttpStatusException forbidden = status(403);
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            RetryClientTests.this.inner
                .thenFail(new HalfOpenStreamException(ScriptedReader.failingToClose(closeFailed), forbidden));
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).stream(REQUEST))).isSameAs(forbidden);
            assertThat(forbidden.getSuppressed()).containsExactly(closeFailed);
        }

        @Test
        void addsEarlierCloseFailuresToAPermanentFailureOfALaterAttempt() {
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            HttpStatusException badRequest = status(400);
            RetryClientTests.this.inner
                .thenFail(new HalfOpenStreamException(ScriptedReader.failingToClose(closeFailed), status(503)), badRequest);
            assertThat(catchThrowable(() -> retrying(FIVE_ATTEMPTS).stream(REQUEST))).isSameAs(badRequest);
            assertThat(badRequest.getSuppressed()).containsExactly(closeFailed);
        }

        @Test
        void addsACloseFailureAsSuppressedWhenCancelledDuringTheWait() {
            CallContext context = CallContext.cancellable();
            HttpStatusException unavailable = status(503);
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            RetryClientTests.this.inner
                .thenFail(new HalfOpenStreamException(ScriptedReader.failingToClose(closeFailed), unavailable));
            RetryClient client = client(builder(FIVE_ATTEMPTS).sleeper((delay, c) -> c.cancel()));
            assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> client.stream(REQUEST, context))
                .satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(unavailable, closeFailed));
        }

        @Test
        void dropsACloseFailureWhenALaterAttemptSucceeds() {
            IllegalStateException closeFailed = new IllegalStateException("close failed");
            ScriptedReader established = ScriptedReader.completing("Hel");
            RetryClientTests.this.inner
                .thenFail(new HalfOpenStreamException(ScriptedReader.failingToClose(closeFailed), status(503)))
                .thenOpen(established);
            try (StreamReader reader = retrying(FIVE_ATTEMPTS).stream(REQUEST)) {
                assertThat(reader.next()).isEqualTo(StreamEvent.of("Hel"));
                assertThat(reader.hasNext()).isFalse();
                assertThat(reader.result()).isEqualTo(StreamResult.completed().withAttempts(2));
            }
            assertThat(closeFailed.getSuppressed()).isEmpty();
        }
    }

    @Nested
    @EnabledForJreRange(min = JRE.JAVA_21)
    class OnVirtualThreads {

        private static final int CALLS = 10_000;

        @Test
        @Timeout(120)
        void cancelsTenThousandCallsWaitingInBackoffWithoutAnotherAttempt() throws Exception {
            AtomicInteger attempts = new AtomicInteger();
            InferenceClient failing = new InferenceClient() {

                @Override
                public InferenceResponse invoke(InferenceRequest request, CallContext context) {
                    attempts.incrementAndGet();
                    throw new NetworkException("connection reset", null);
                }

                @Override
                public StreamReader stream(InferenceRequest request, CallContext context) {
                    throw new UnsupportedOperationException("invoke only");
                }
            };
            CountDownLatch scheduled = new CountDownLatch(CALLS);
            RetryClient client = RetryClient.of(failing, Retrier.builder(HOUR_LONG_WAIT)
                .listener(countingDown(scheduled))
                .sleeper(Sleeper.system())
                .build());
            CallContext context = CallContext.cancellable();
            ExecutorService executor = newVirtualThreadPerTaskExecutor();
            try {
                assertThat(executor.submit(OnVirtualThreads::isVirtual).get()).isTrue();
                List<Future<Throwable>> outcomes = new ArrayList<>(CALLS);
                for (int i = 0; i < CALLS; i++) {
                    outcomes.add(executor.submit(() -> catchThrowable(() -> client.invoke(REQUEST, context))));
                }
                scheduled.await();
                context.cancel();
                for (Future<Throwable> outcome : outcomes) {
                    assertThat(outcome.get()).isInstanceOf(CancellationException.class)
                        .hasMessage("The call was cancelled");
                }
            }
            finally {
                executor.shutdownNow();
            }
            assertThat(attempts).hasValue(CALLS);
        }

        // Compiled with --release 17: reach the Java 21 API reflectively.
        private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        }

        private static boolean isVirtual() throws ReflectiveOperationException {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        }
    }

    /** A listener that throws this error each time an attempt finishes, and does nothing else. */
    private static RetryListener throwingOnAttemptFinished(Error error) {
        return new RetryListener() {

            @Override
            public void attemptFinished(AttemptEvent event) {
                throw error;
            }
        };
    }

    @Nested
    class Shutdown {

        private final ShutdownSignal signal = ShutdownSignal.create();

        @Test
        @Timeout(30)
        void endsAWaitingCallAtOnceWithoutAnotherAttempt() throws Exception {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenRespond("never asked");
            CountDownLatch scheduled = new CountDownLatch(1);
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .listener(countingDown(scheduled))
                .shutdownSignal(this.signal)
                .build());
            Caller caller = Caller.start(() -> client.invoke(REQUEST, CallContext.background()));
            scheduled.await();
            caller.awaitParked();

            this.signal.shutDown();

            Throwable thrown = caller.outcome().get();
            assertThat(thrown).isInstanceOf(ShutdownException.class)
                .hasMessage("The application is shutting down: the wait before attempt 2 was ended");
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void waitsOutAShortBackoffInRealTimeWhileNoShutdownComes() {
            RetryClientTests.this.inner.thenFail(reset()).thenRespond("hello");
            RetryClient client = RetryClient.of(RetryClientTests.this.inner,
                    Retrier.builder(new Policy(0, Duration.ofMillis(1), 2, Duration.ofMillis(1)))
                .shutdownSignal(this.signal)
                .build());

            assertThat(client.invoke(REQUEST, CallContext.background()).attempts()).isEqualTo(2);
        }

        @Test
        @Timeout(30)
        void stillEndsTheWaitWhenTheCallerCancels() throws Exception {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenRespond("never asked");
            CountDownLatch scheduled = new CountDownLatch(1);
            CallContext context = CallContext.cancellable();
            RetryClient client = RetryClient.of(RetryClientTests.this.inner, Retrier.builder(HOUR_LONG_WAIT)
                .listener(countingDown(scheduled))
                .shutdownSignal(this.signal)
                .build());
            Caller caller = Caller.start(() -> client.invoke(REQUEST, context));
            scheduled.await();
            caller.awaitParked();

            context.cancel();

            assertThat(caller.outcome().get()).isInstanceOf(CancellationException.class);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void doesNotRetryAFailureThatArrivesAfterShutdownBegan() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.then((context) -> {
                this.signal.shutDown();
                throw reset;
            }).thenRespond("never asked");
            RetryClient client = client(builder(FIVE_ATTEMPTS).shutdownSignal(this.signal));

            Throwable thrown = catchThrowable(() -> client.invoke(REQUEST, CallContext.background()));

            assertThat(thrown).isInstanceOf(ShutdownException.class)
                .hasMessage("The application is shutting down: attempt 1 failed and is not retried");
            assertThat(thrown.getSuppressed()).containsExactly(reset);
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void stillMakesTheFirstAttemptOfACallAfterShutdownBegan() {
            this.signal.shutDown();
            RetryClientTests.this.inner.thenRespond("hello");
            RetryClient client = client(builder(FIVE_ATTEMPTS).shutdownSignal(this.signal));

            assertThat(client.invoke(REQUEST, CallContext.background()).output()).isEqualTo("hello");
        }

        @Test
        void endsACallAfterAWaitOfItsOwnSleeper() {
            NetworkException reset = reset();
            RetryClientTests.this.inner.thenFail(reset).thenRespond("never asked");
            RetryClient client = client(builder(FIVE_ATTEMPTS).shutdownSignal(this.signal)
                .sleeper((delay, context) -> this.signal.shutDown()));

            assertThatExceptionOfType(ShutdownException.class)
                .isThrownBy(() -> client.invoke(REQUEST, CallContext.background()));
            assertThat(RetryClientTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void exhaustsRatherThanShutsDownWhenNoAttemptIsLeft() {
            this.signal.shutDown();
            RetryClientTests.this.inner.thenFail(reset());
            RetryClient client = client(builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
                .shutdownSignal(this.signal));

            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> client.invoke(REQUEST, CallContext.background()));
        }
    }

    private static RetryListener countingDown(CountDownLatch scheduled) {
        return new RetryListener() {

            @Override
            public void retryScheduled(AttemptEvent failed, Duration delay) {
                scheduled.countDown();
            }
        };
    }

    /** Records each call it receives, tagged with its name, into a list it shares with others. */
    private record NamedListener(String name, List<Map.Entry<String, Object>> calls) implements RetryListener {

        @Override
        public void attemptFinished(AttemptEvent event) {
            this.calls.add(Map.entry(this.name, new Finished(event)));
        }

        @Override
        public void retryScheduled(AttemptEvent failed, Duration delay) {
            this.calls.add(Map.entry(this.name, new Scheduled(failed, delay)));
        }

        @Override
        public void exhausted(AttemptEvent last, ExhaustedException exception) {
            this.calls.add(Map.entry(this.name, new Exhausted(last, exception)));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T catchThrowableOfType(Runnable call) {
        return (T) catchThrowable(call::run);
    }

    /** A call made on a platform thread of its own, so that the test can cancel or interrupt it. */
    private record Caller(Thread thread, CompletableFuture<Throwable> outcome,
            CompletableFuture<Boolean> interruptedAfterwards) {

        static Caller start(Runnable call) {
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                Throwable thrown = catchThrowable(call::run);
                interrupted.complete(Thread.currentThread().isInterrupted());
                outcome.complete(thrown);
            }, "caller");
            thread.start();
            return new Caller(thread, outcome, interrupted);
        }

        /** Returns once the caller is parked, which after retryScheduled can only be the backoff wait. */
        void awaitParked() {
            Thread.State state = this.thread.getState();
            while (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                assertThat(state).as("the caller's state").isNotEqualTo(Thread.State.TERMINATED);
                Thread.yield();
                state = this.thread.getState();
            }
        }
    }
}
