package dev.inference.retry.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.RecordingListener;
import dev.inference.retry.Operation;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The Reactor operator and the blocking {@link RetryClient} make the same decisions and tell their
 * listeners the same events for the same failures, since both drive the same {@code RetryExecution}.
 * Each script runs through both, in virtual time, with the same failure instances and jitter.
 */
class SameDecisionsAsRetryClientTests {

    /** Waits of 0.95 s, 1.9 s and 3.8 s before attempts 2, 3 and 4, with the jitter below. */
    private static final Policy POLICY = new Policy(1, Duration.ofSeconds(1), 4, Duration.ofSeconds(10));

    /** The jitter factor 0.95, so that a delay is not simply the slot. */
    private static final double JITTER_UNIT = 0.25;

    static Stream<Arguments> scripts() {
        return Stream.of(Operation.values()).flatMap((operation) -> scriptsFor().map((script) -> arguments(script, operation)));
    }

    private static Stream<Script> scriptsFor() {
        return Stream.of(new Script("200 at once", Contexts.BACKGROUND, null, succeed("hello world")),
                new Script("503, 503, 200", Contexts.BACKGROUND, null, fail(status(503, null)), fail(status(503, null)),
                        succeed("hello world")),
                new Script("429 with Retry-After 3s, 200", Contexts.BACKGROUND, null,
                        fail(status(429, Duration.ofSeconds(3))), succeed("hello")),
                new Script("429 with Retry-After 1h (capped at 5 min), 200", Contexts.BACKGROUND, null,
                        fail(status(429, Duration.ofHours(1))), succeed("hello")),
                new Script("400", Contexts.BACKGROUND, null, fail(status(400, null))),
                new Script("an untyped failure", Contexts.BACKGROUND, null, fail(new IllegalStateException("a bug"))),
                new Script("503 × maxAttempts → exhausted", Contexts.BACKGROUND, null, fail(status(503, null)),
                        fail(reset()), fail(status(500, null)), fail(status(503, null))),
                new Script("NetworkException, then cancelled during the wait", Contexts.CANCELLABLE, Duration.ofMillis(500),
                        fail(reset()), succeed("hello")),
                new Script("503, then an attempt that observes the cancellation", Contexts.CANCELLABLE, null,
                        fail(status(503, null)), fail(new CancellationException("aborted by the transport"))),
                new Script("a context cancelled before the call", Contexts.CANCELLED, null, succeed("hello")),
                new Script("503, 503 with the deadline inside the second wait", Contexts.TWO_SECONDS, null,
                        fail(status(503, null)), fail(status(503, null)), succeed("hello")),
                new Script("503, then an Error", Contexts.BACKGROUND, null, fail(status(503, null)),
                        fail(new AssertionError("a bug in the transport"))));
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("scripts")
    void theListenerHearsTheSameEventsAndTheCallEndsTheSame(Script script, Operation operation) {
        Run blocking = runBlocking(script, operation);
        Run reactive = runReactive(script, operation);

        assertThat(reactive.events()).isEqualTo(blocking.events());
        assertThat(reactive.outcome()).isEqualTo(blocking.outcome());
        assertThat(reactive.attempts()).isEqualTo(blocking.attempts());
    }

    private static Run runBlocking(Script script, Operation operation) {
        RecordingListener listener = new RecordingListener();
        AtomicLong nanos = new AtomicLong();
        CallContext context = script.context().apply(new NanoClock(nanos::get));
        ScriptedClient inner = new ScriptedClient(script.steps());
        RetryClient client = RetryClient.of(inner, Retrier.builder(POLICY)
            .name("parity")
            .listener(listener)
            .random(FixedRandom.always(JITTER_UNIT))
            .sleeper((delay, ctx) -> {
                long end = nanos.get() + delay.toNanos();
                if (script.cancelAt() != null && script.cancelAt().toNanos() < end) {
                    nanos.set(script.cancelAt().toNanos());
                    ctx.cancel();
                }
                else {
                    nanos.set(end);
                }
            })
            .build());
        InferenceRequest request = InferenceRequest.of("model", "prompt");
        Outcome outcome;
        try {
            outcome = Outcome.value((operation == Operation.INVOKE) ? client.invoke(request, context).output()
                    : readAll(client.stream(request, context)));
        }
        catch (Throwable ex) {
            outcome = Outcome.failure(ex);
        }
        return new Run(listener.calls(), outcome, inner.attempts());
    }

    private static Run runReactive(Script script, Operation operation) {
        RecordingListener listener = new RecordingListener();
        VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
        CallContext context = script.context().apply(NanoClock.of(scheduler));
        if (script.cancelAt() != null) {
            scheduler.schedule(context::cancel, script.cancelAt().toNanos(), TimeUnit.NANOSECONDS);
        }
        Retrier retrier = Retrier.builder(POLICY).name("parity").listener(listener).random(FixedRandom.always(JITTER_UNIT))
            .build();
        ReactorRetry retry = ReactorRetry.of(retrier, scheduler);
        ScriptedSource source = ScriptedSource.script();
        script.steps().forEach((step) -> step.addTo(source, operation));
        Mono<String> call = (operation == Operation.INVOKE) ? retry.mono(source.mono(), context)
                : retry.flux(source.flux(), context).collectList().map((words) -> String.join(" ", words));
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        StepVerifier.withVirtualTime(call::materialize, () -> scheduler, Long.MAX_VALUE)
            .thenAwait(Duration.ofHours(1))
            .consumeNextWith((signal) -> outcome.set(Outcome.of(signal)))
            .expectComplete()
            .verify(Duration.ofSeconds(10));
        return new Run(listener.calls(), outcome.get(), source.subscriptions());
    }

    private static String readAll(StreamReader reader) {
        try (reader) {
            List<String> words = new ArrayList<>();
            while (reader.hasNext()) {
                words.add(reader.next().data());
            }
            return String.join(" ", words);
        }
    }

    private static HttpStatusException status(int status, @Nullable Duration retryAfter) {
        return new HttpStatusException(status, "The provider answered " + status, retryAfter);
    }

    private static NetworkException reset() {
        return new NetworkException("Connection reset", null);
    }

    private static Step fail(Throwable failure) {
        return new Step(failure, null);
    }

    /** A success: one response for a unary call, one element (or event) per word for a stream. */
    private static Step succeed(String output) {
        return new Step(null, output);
    }

    /** The contexts a script can run under, each made on the run's clock. */
    private enum Contexts implements Function<Clock, CallContext> {

        BACKGROUND {
            @Override
            public CallContext apply(Clock clock) {
                return CallContext.background();
            }
        },

        CANCELLABLE {
            @Override
            public CallContext apply(Clock clock) {
                return CallContext.cancellable();
            }
        },

        CANCELLED {
            @Override
            public CallContext apply(Clock clock) {
                CallContext context = CallContext.cancellable();
                context.cancel();
                return context;
            }
        },

        TWO_SECONDS {
            @Override
            public CallContext apply(Clock clock) {
                return CallContext.withTimeout(Duration.ofSeconds(2), clock);
            }
        }
    }

    /**
     * One failure sequence. The failure instances are made once per script, so that both runs
     * report and throw the very same ones.
     */
    record Script(String name, Function<Clock, CallContext> context, @Nullable Duration cancelAt, List<Step> steps) {

        Script(String name, Function<Clock, CallContext> context, @Nullable Duration cancelAt, Step... steps) {
            this(name, context, cancelAt, List.of(steps));
        }

        @Override
        public String toString() {
            return this.name;
        }
    }

    /** One attempt: it fails with {@code failure}, or succeeds with {@code output}. */
    record Step(@Nullable Throwable failure, @Nullable String output) {

        void addTo(ScriptedSource source, Operation operation) {
            if (this.failure != null) {
                source.thenFail(this.failure);
            }
            else {
                source.thenEmit((operation == Operation.STREAM) ? this.output.split(" ") : new String[] { this.output });
            }
        }
    }

    /** What the listener heard, how the call ended and how many attempts it made. */
    record Run(List<Object> events, Outcome outcome, int attempts) {
    }

    /** How a call ended: with a value, or with an exception described by what a caller can see. */
    record Outcome(@Nullable String value, @Nullable Class<?> type, @Nullable String message, @Nullable Throwable cause,
            List<Throwable> suppressed) {

        static Outcome value(String value) {
            return new Outcome(value, null, null, null, List.of());
        }

        static Outcome failure(Throwable failure) {
            return new Outcome(null, failure.getClass(), failure.getMessage(), failure.getCause(),
                    Arrays.asList(failure.getSuppressed()));
        }

        static Outcome of(Signal<String> signal) {
            if (signal.isOnError()) {
                return failure(Objects.requireNonNull(signal.getThrowable()));
            }
            return value(Objects.requireNonNull(signal.get(), "the call completed without a value"));
        }
    }

    /** The blocking side's inner client: plays the steps, one per attempt, through either operation. */
    private static final class ScriptedClient implements InferenceClient {

        private final Iterator<Step> steps;

        private final AtomicInteger attempts = new AtomicInteger();

        ScriptedClient(List<Step> steps) {
            this.steps = steps.iterator();
        }

        int attempts() {
            return this.attempts.get();
        }

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            return InferenceResponse.of(next());
        }

        @Override
        public StreamReader stream(InferenceRequest request, CallContext context) {
            return new WordReader(next());
        }

        private String next() {
            this.attempts.incrementAndGet();
            Step step = this.steps.next();
            if (step.failure() != null) {
                throw ScriptedClient.<RuntimeException>sneaky(step.failure());
            }
            return step.output();
        }

        @SuppressWarnings("unchecked")
        private static <X extends Throwable> X sneaky(Throwable failure) throws X {
            throw (X) failure;
        }
    }

    /** A reader that gives one event per word. */
    private static final class WordReader implements StreamReader {

        private final Iterator<String> words;

        WordReader(String output) {
            this.words = List.of(output.split(" ")).iterator();
        }

        @Override
        public boolean hasNext() {
            return this.words.hasNext();
        }

        @Override
        public StreamEvent next() {
            if (!this.words.hasNext()) {
                throw new NoSuchElementException("The stream has ended");
            }
            return StreamEvent.of(this.words.next());
        }

        @Override
        public StreamResult result() {
            if (this.words.hasNext()) {
                throw new IllegalStateException("The stream has not ended");
            }
            return StreamResult.completed();
        }

        @Override
        public void close() {
        }
    }
}
