package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.StreamStalledException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.fixtures.VirtualTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The timeouts of SPEC §11 in a {@link RetryClient}, in virtual time: the inner client "hangs" by
 * moving the shared clock forward, which runs the timer's due tasks as a real timer would.
 */
class RetryClientTimeoutsTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private static final Duration TWO_SECONDS = Duration.ofSeconds(2);

    private final ScriptedClient inner = ScriptedClient.script();

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    private final VirtualTimer timer = new VirtualTimer(this.clock);

    private final List<StreamStalledEvent> stalls = new ArrayList<>();

    private final RecordingListener listener = new RecordingListener();

    private RetryClient retrying(Timeouts timeouts) {
        return RetryClient.of(this.inner, Retrier.builder(THREE_ATTEMPTS)
            .name("chat")
            .listener(this.listener)
            .listener(new RetryListener() {
                @Override
                public void streamStalled(StreamStalledEvent event) {
                    RetryClientTimeoutsTests.this.stalls.add(event);
                }
            })
            .sleeper(this.sleeper)
            .random(FixedRandom.noJitter())
            .timer(this.timer)
            .timeouts(timeouts)
            .build());
    }

    private static Timeouts attempt(Duration timeout) {
        return Timeouts.none().withAttempt(timeout);
    }

    /** An attempt that takes {@code duration} and then answers, unless its context is done by then. */
    private Function<CallContext, Object> taking(Duration duration, Object answer) {
        return (context) -> {
            this.timer.advance(duration);
            if (context.isDone()) {
                throw context.failure().orElseThrow();
            }
            return answer;
        };
    }

    /** An attempt that takes {@code duration} and answers whether its context is done or not. */
    private Function<CallContext, Object> ignoringItsContext(Duration duration, Object answer) {
        return (context) -> {
            this.timer.advance(duration);
            return answer;
        };
    }

    @Nested
    class AttemptTimeout {

        @Test
        void abandonsAHungAttemptAndRetriesItWithTheBackoffSchedule() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("late")))
                .thenRespond("hello");
            InferenceResponse response = retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable());
            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(2);
            assertThat(RetryClientTimeoutsTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
        }

        @Test
        void reportsTheAbandonedAttemptAsARetryableAttemptTimeout() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("late")))
                .thenRespond("hello");
            retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable());
            AttemptEvent first = ((RecordingListener.Finished) RetryClientTimeoutsTests.this.listener.calls().get(0))
                .event();
            assertThat(first.failure()).isInstanceOf(AttemptTimeoutException.class);
            assertThat(first.retryable()).isTrue();
            assertThat(((AttemptTimeoutException) first.failure()).timeout()).isEqualTo(TWO_SECONDS);
        }

        @Test
        void endsTheAttemptsContextAndNeverTheCallers() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("late")))
                .thenRespond("hello");
            CallContext caller = CallContext.cancellable();
            retrying(attempt(TWO_SECONDS)).invoke(REQUEST, caller);
            List<CallContext> contexts = RetryClientTimeoutsTests.this.inner.contexts();
            assertThat(contexts.get(0)).isNotSameAs(caller);
            assertThat(contexts.get(0).isDone()).isTrue();
            assertThat(caller.isDone()).isFalse();
        }

        @Test
        void abandonsAResultThatCameAfterTheTimeout() {
            RetryClientTimeoutsTests.this.inner
                .then(ignoringItsContext(Duration.ofSeconds(5), InferenceResponse.of("late")))
                .thenRespond("hello");
            InferenceResponse response = retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable());
            assertThat(response.output()).isEqualTo("hello");
            assertThat(response.attempts()).isEqualTo(2);
        }

        @Test
        void exhaustsWithTheTimeoutWhenEveryAttemptHangs() {
            for (int i = 0; i < 3; i++) {
                RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("late")));
            }
            Throwable thrown = catchThrowable(
                    () -> retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable()));
            assertThat(thrown).isInstanceOf(ExhaustedException.class).hasCauseInstanceOf(AttemptTimeoutException.class);
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(3);
        }

        @Test
        void letsAnAttemptWithinItsTimeoutSucceed() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(1), InferenceResponse.of("hello")));
            InferenceResponse response = retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable());
            assertThat(response.attempts()).isEqualTo(1);
        }

        @Test
        void leavesNoTimerTaskBehind() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(1), InferenceResponse.of("hello")));
            retrying(attempt(TWO_SECONDS)).invoke(REQUEST, CallContext.cancellable());
            assertThat(RetryClientTimeoutsTests.this.timer.pending()).isZero();
        }

        @Test
        void givesWayToTheCallersDeadline() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("late")));
            CallContext caller = CallContext.withTimeout(Duration.ofSeconds(1), RetryClientTimeoutsTests.this.clock);
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> retrying(attempt(TWO_SECONDS)).invoke(REQUEST, caller));
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void givesWayToTheCallersCancellation() {
            CallContext caller = CallContext.cancellable();
            RetryClientTimeoutsTests.this.inner.then((context) -> {
                caller.cancel();
                return taking(Duration.ofSeconds(5), InferenceResponse.of("late")).apply(context);
            });
            assertThatExceptionOfType(CancellationException.class)
                .isThrownBy(() -> retrying(attempt(TWO_SECONDS)).invoke(REQUEST, caller));
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void isOffUnlessSet() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofHours(1), InferenceResponse.of("hello")));
            CallContext caller = CallContext.cancellable();
            InferenceResponse response = retrying(Timeouts.none()).invoke(REQUEST, caller);
            assertThat(response.output()).isEqualTo("hello");
            assertThat(RetryClientTimeoutsTests.this.inner.contexts()).containsExactly(caller);
        }

        @Test
        void doesNotBoundAStream() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), new TimedReader()));
            try (StreamReader reader = retrying(attempt(TWO_SECONDS)).stream(REQUEST, CallContext.cancellable())) {
                assertThat(reader.result().attempts()).isEqualTo(1);
            }
        }
    }

    @Nested
    class FirstTokenTimeout {

        private RetryClient client() {
            return retrying(Timeouts.none().withFirstToken(TWO_SECONDS));
        }

        @Test
        void abandonsAStreamNotEstablishedInTimeAndRetriesIt() {
            TimedReader late = new TimedReader();
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), late))
                .thenOpen(new TimedReader().then(Duration.ZERO, "hello"));
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                assertThat(reader.hasNext()).isTrue();
                assertThat(reader.next().data()).isEqualTo("hello");
                assertThat(reader.result().attempts()).isEqualTo(2);
            }
            assertThat(RetryClientTimeoutsTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
        }

        @Test
        void closesTheReaderOfAHalfOpenStreamThatTimedOut() {
            TimedReader halfOpen = new TimedReader();
            RetryClientTimeoutsTests.this.inner.then((context) -> {
                RetryClientTimeoutsTests.this.timer.advance(Duration.ofSeconds(5));
                throw new HalfOpenStreamException(halfOpen, context.failure().orElseThrow());
            }).thenOpen(new TimedReader());
            client().stream(REQUEST, CallContext.cancellable()).close();
            assertThat(halfOpen.closes).isEqualTo(1);
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(2);
        }

        @Test
        void closesAReaderReturnedAfterTheTimeout() {
            TimedReader late = new TimedReader();
            RetryClientTimeoutsTests.this.inner.then(ignoringItsContext(Duration.ofSeconds(5), late))
                .thenOpen(new TimedReader());
            client().stream(REQUEST, CallContext.cancellable()).close();
            assertThat(late.closes).isEqualTo(1);
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(2);
        }

        @Test
        void noLongerAppliesOnceTheStreamIsEstablished() {
            RetryClientTimeoutsTests.this.inner
                .thenOpen(new TimedReader().then(Duration.ofSeconds(5), "hello"));
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                assertThat(reader.hasNext()).isTrue();
                assertThat(reader.next().data()).isEqualTo("hello");
            }
        }

        @Test
        void doesNotBoundAnInvoke() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), InferenceResponse.of("hello")));
            assertThat(client().invoke(REQUEST, CallContext.cancellable()).attempts()).isEqualTo(1);
        }

        @Test
        void givesWayToTheCallersDeadline() {
            RetryClientTimeoutsTests.this.inner.then(taking(Duration.ofSeconds(5), new TimedReader()));
            CallContext caller = CallContext.withTimeout(Duration.ofSeconds(1), RetryClientTimeoutsTests.this.clock);
            assertThatExceptionOfType(DeadlineExceededException.class)
                .isThrownBy(() -> client().stream(REQUEST, caller));
        }

        @Test
        void leavesNoTimerTaskOnceTheReaderIsClosed() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader());
            client().stream(REQUEST, CallContext.cancellable()).close();
            assertThat(RetryClientTimeoutsTests.this.timer.pending()).isZero();
        }

        @Test
        void letsTheCallersCancellationReachTheEstablishedStream() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader());
            CallContext caller = CallContext.cancellable();
            try (StreamReader reader = client().stream(REQUEST, caller)) {
                caller.cancel();
                assertThat(RetryClientTimeoutsTests.this.inner.contexts().get(0).isDone()).isTrue();
            }
        }
    }

    @Nested
    class StreamIdleTimeout {

        private RetryClient client() {
            return retrying(Timeouts.none().withStreamIdle(TWO_SECONDS));
        }

        @Test
        void endsAStreamSilentPastItWithAStall() {
            TimedReader silent = new TimedReader().then(Duration.ofSeconds(1), "hello").then(Duration.ofSeconds(5), "late");
            RetryClientTimeoutsTests.this.inner.thenOpen(silent);
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                assertThat(reader.hasNext()).isTrue();
                assertThat(reader.next().data()).isEqualTo("hello");
                assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext)
                    .satisfies((stall) -> assertThat(stall.idleTimeout()).isEqualTo(TWO_SECONDS));
                assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::next);
            }
        }

        @Test
        void closesTheStalledReaderAndEndsItsAttemptsContext() {
            TimedReader silent = new TimedReader().then(Duration.ofSeconds(5), "late");
            RetryClientTimeoutsTests.this.inner.thenOpen(silent);
            StreamReader reader = client().stream(REQUEST, CallContext.cancellable());
            assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext);
            assertThat(silent.closes).isEqualTo(1);
            assertThat(RetryClientTimeoutsTests.this.inner.contexts().get(0).isDone()).isTrue();
            reader.close();
        }

        @Test
        void neverRetriesAStall() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader().then(Duration.ofSeconds(5), "late"));
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext);
            }
            assertThat(RetryClientTimeoutsTests.this.inner.attempts()).isEqualTo(1);
        }

        @Test
        void tellsTheListenersOfTheStallOnce() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader().then(Duration.ofSeconds(5), "late"));
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext);
                assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext);
            }
            assertThat(RetryClientTimeoutsTests.this.stalls).containsExactly(new StreamStalledEvent("chat", TWO_SECONDS));
        }

        @Test
        void isKeptAliveByEventsWithinIt() {
            TimedReader steady = new TimedReader();
            for (int i = 0; i < 5; i++) {
                steady.then(Duration.ofMillis(1500), "token " + i);
            }
            RetryClientTimeoutsTests.this.inner.thenOpen(steady);
            List<String> read = new ArrayList<>();
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                while (reader.hasNext()) {
                    read.add(reader.next().data());
                }
            }
            assertThat(read).hasSize(5);
            assertThat(RetryClientTimeoutsTests.this.stalls).isEmpty();
        }

        @Test
        void doesNotCountTheTimeTheCallerTakesBetweenReads() {
            RetryClientTimeoutsTests.this.inner
                .thenOpen(new TimedReader().then(Duration.ZERO, "one").then(Duration.ofSeconds(1), "two"));
            try (StreamReader reader = client().stream(REQUEST, CallContext.cancellable())) {
                reader.hasNext();
                reader.next();
                RetryClientTimeoutsTests.this.timer.advance(Duration.ofSeconds(10));
                assertThat(reader.hasNext()).isTrue();
                assertThat(reader.next().data()).isEqualTo("two");
            }
        }

        @Test
        void leavesNoTimerTaskOnceTheReaderIsClosed() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader().then(Duration.ofSeconds(1), "hello"));
            StreamReader reader = client().stream(REQUEST, CallContext.cancellable());
            reader.hasNext();
            reader.close();
            assertThat(RetryClientTimeoutsTests.this.timer.pending()).isZero();
        }

        @Test
        void leavesNoTimerTaskAfterAStall() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader().then(Duration.ofSeconds(5), "late"));
            StreamReader reader = client().stream(REQUEST, CallContext.cancellable());
            assertThatExceptionOfType(StreamStalledException.class).isThrownBy(reader::hasNext);
            reader.close();
            assertThat(RetryClientTimeoutsTests.this.timer.pending()).isZero();
        }

        @Test
        void closesTheStreamWhenTheTimerRefusesToWatchIt() {
            TimedReader opened = new TimedReader();
            RetryClientTimeoutsTests.this.inner.thenOpen(opened);
            RetryClient client = RetryClient.of(RetryClientTimeoutsTests.this.inner, Retrier.builder(THREE_ATTEMPTS)
                .sleeper(RetryClientTimeoutsTests.this.sleeper)
                .timer((delay, action) -> {
                    throw new RejectedExecutionException("shut down");
                })
                .timeouts(Timeouts.none().withStreamIdle(TWO_SECONDS))
                .build());
            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> client.stream(REQUEST, CallContext.cancellable()));
            assertThat(opened.closes).isEqualTo(1);
        }

        @Test
        void isOffUnlessSet() {
            RetryClientTimeoutsTests.this.inner.thenOpen(new TimedReader().then(Duration.ofHours(1), "hello"));
            CallContext caller = CallContext.cancellable();
            try (StreamReader reader = retrying(Timeouts.none()).stream(REQUEST, caller)) {
                assertThat(reader.hasNext()).isTrue();
            }
            assertThat(RetryClientTimeoutsTests.this.inner.contexts()).containsExactly(caller);
            assertThat(RetryClientTimeoutsTests.this.timer.pending()).isZero();
        }
    }

    /**
     * A reader whose events each take a time to come, in virtual time; like a real client's, a read
     * ends with the failure of its context once that context is done, and once closed it has no more
     * events.
     */
    private final class TimedReader implements StreamReader {

        private final Deque<Object[]> events = new ArrayDeque<>();

        private CallContext context = CallContext.background();

        int closes;

        TimedReader then(Duration after, String data) {
            this.events.add(new Object[] {after, data});
            return this;
        }

        @Override
        public boolean hasNext() {
            List<CallContext> contexts = RetryClientTimeoutsTests.this.inner.contexts();
            this.context = contexts.get(contexts.size() - 1);
            Object[] event = this.events.peek();
            if (event == null || this.closes > 0) {
                return false;
            }
            RetryClientTimeoutsTests.this.timer.advance((Duration) event[0]);
            event[0] = Duration.ZERO;
            if (this.context.isDone()) {
                throw this.context.failure().orElseThrow();
            }
            return this.closes == 0;
        }

        @Override
        public StreamEvent next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return StreamEvent.of((String) this.events.poll()[1]);
        }

        @Override
        public StreamResult result() {
            return StreamResult.completed();
        }

        @Override
        public void close() {
            this.closes++;
        }
    }
}
