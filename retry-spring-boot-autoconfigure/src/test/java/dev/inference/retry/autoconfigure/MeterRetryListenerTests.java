package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MeterRetryListenerTests {

    private static final HttpStatusException BUSY = new HttpStatusException(503, "busy", null);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static AttemptEvent succeeded(String client, Operation operation) {
        return new AttemptEvent(client, operation, 1, null, false);
    }

    private static AttemptEvent failed(String client, int attempt) {
        return new AttemptEvent(client, Operation.INVOKE, attempt, BUSY, true);
    }

    @Nested
    class ErrorTag {

        @Test
        void namesTheFirstTypedFailureInTheCauseChain() {
            RuntimeException wrapped = new IllegalStateException("wrapper",
                    new RuntimeException("inner", new HttpStatusException(502, "bad gateway", null)));
            assertThat(RetryTags.error(wrapped)).isEqualTo("http_502");
        }

        @Test
        void namesAShutdown() {
            assertThat(RetryTags.error(new NetworkException("reset", new ShutdownException("going away"))))
                .isEqualTo("shutdown");
        }

        @Test
        void namesAUsedUpQuotaBeneathTheSdksException() {
            assertThat(RetryTags.error(new IllegalStateException("429: quota",
                    new QuotaExceededException(429, "insufficient_quota", "Check your billing.")))).isEqualTo("quota");
        }

        @Test
        void letsACancellationAnywhereInTheChainWin() {
            RuntimeException failure = new HttpStatusException(503, "busy", null);
            failure.initCause(new NetworkException("closed", new CancellationException("cancelled")));
            assertThat(RetryTags.error(failure)).isEqualTo("cancelled");
        }

        @Test
        void endsOnACyclicCauseChain() {
            RuntimeException first = new RuntimeException("first");
            IllegalArgumentException second = new IllegalArgumentException("second", first);
            first.initCause(second);
            assertThat(RetryTags.error(first)).isEqualTo("RuntimeException");
        }

        @Test
        void usesTheFullClassNameOfAnAnonymousFailure() {
            RuntimeException anonymous = new RuntimeException("anonymous") {
            };
            assertThat(RetryTags.error(anonymous)).isEqualTo(anonymous.getClass().getName());
        }
    }

    @Test
    void reusesOneCounterPerTagCombination() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterRetryListener listener = new MeterRetryListener(registry, List.of("openai"));
        for (int attempt = 1; attempt <= 3; attempt++) {
            listener.attemptFinished(new AttemptEvent("openai", Operation.INVOKE, attempt,
                    new HttpStatusException(429, "slow down", null), true));
        }
        Collection<Counter> counters = registry.find(MeterRetryListener.ATTEMPTS).tag("outcome", "retryable_failure")
            .counters();
        assertThat(counters).hasSize(1);
        assertThat(RetryMeters.count(counters)).isEqualTo(3);
    }

    @Test
    void registersTheMetersOfAClientFirstSeenInAnEvent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterRetryListener listener = new MeterRetryListener(registry, List.of());
        listener.attemptFinished(new AttemptEvent("late", Operation.STREAM, 1, null, false));
        assertThat(registry.get(MeterRetryListener.EXHAUSTED).tags("client", "late", "operation", "invoke").counter()
            .count()).isZero();
        assertThat(RetryMeters.attempts(registry, "late", "stream", "success", "none")).isEqualTo(1);
    }

    @Nested
    class ForClient {

        @Test
        void registersTheMetersOfItsClientAtZero() {
            new MeterRetryListener(registry, List.of()).forClient("openai");
            for (String operation : new String[] { "invoke", "stream" }) {
                assertThat(RetryMeters.attempts(registry, "openai", operation, "success", "none")).isZero();
                assertThat(RetryMeters.exhausted(registry, "openai", operation)).isZero();
                assertThat(RetryMeters.backoff(registry, "openai", operation).count()).isZero();
            }
        }

        @Test
        void countsIntoTheMetersOfTheListenerItCameFrom() {
            MeterRetryListener all = new MeterRetryListener(registry, List.of("openai"));
            RetryListener one = all.forClient("openai");
            one.attemptFinished(succeeded("openai", Operation.INVOKE));
            all.attemptFinished(succeeded("openai", Operation.INVOKE));
            assertThat(registry.find(MeterRetryListener.ATTEMPTS).tag("outcome", "success").counters()).hasSize(2);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(2);
        }

        @Test
        void countsEveryKindOfEventOfItsClient() {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            one.attemptFinished(succeeded("openai", Operation.STREAM));
            one.attemptFinished(failed("openai", 1));
            one.retryScheduled(failed("openai", 1), Duration.ofMillis(150));
            one.attemptFinished(failed("openai", 2));
            one.exhausted(failed("openai", 2), new ExhaustedException(2, BUSY));
            assertThat(RetryMeters.attempts(registry, "openai", "stream", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "retryable_failure", "http_503")).isEqualTo(2);
            assertThat(RetryMeters.backoff(registry, "openai", "invoke").count()).isEqualTo(1);
            assertThat(RetryMeters.backoff(registry, "openai", "invoke").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(150);
            assertThat(RetryMeters.exhausted(registry, "openai", "invoke")).isEqualTo(1);
        }

        @Test
        void countsAnEventOfAnotherClientUnderThatClientsName() {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            one.attemptFinished(succeeded("renamed", Operation.INVOKE));
            one.retryScheduled(failed("renamed", 1), Duration.ofMillis(150));
            one.exhausted(failed("renamed", 2), new ExhaustedException(2, BUSY));
            assertThat(RetryMeters.attempts(registry, "renamed", "invoke", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.backoff(registry, "renamed", "invoke").count()).isEqualTo(1);
            assertThat(RetryMeters.exhausted(registry, "renamed", "invoke")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isZero();
        }

        @Test
        void countsEachSuccessOfAnEventToldAgainUnderItsOwnOperation() {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            AttemptEvent invoked = succeeded("openai", Operation.INVOKE);
            AttemptEvent streamed = succeeded("openai", Operation.STREAM);
            for (int i = 0; i < 3; i++) {
                one.attemptFinished(invoked);
                one.attemptFinished(streamed);
            }
            one.attemptFinished(streamed);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(3);
            assertThat(RetryMeters.attempts(registry, "openai", "stream", "success", "none")).isEqualTo(4);
        }

        @Test
        void countsAnotherClientsSuccessUnderItsNameAfterItsOwnClientsSuccesses() {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            one.attemptFinished(succeeded("openai", Operation.INVOKE));
            one.attemptFinished(succeeded("openai", Operation.STREAM));
            one.attemptFinished(succeeded("renamed", Operation.INVOKE));
            one.attemptFinished(succeeded("renamed", Operation.STREAM));
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "openai", "stream", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "renamed", "invoke", "success", "none")).isEqualTo(1);
            assertThat(RetryMeters.attempts(registry, "renamed", "stream", "success", "none")).isEqualTo(1);
        }

        @Test
        void describesItselfByItsRegistryAndClient() {
            assertThat(new MeterRetryListener(registry, List.of()).forClient("openai"))
                .hasToString("MeterRetryListener[SimpleMeterRegistry, client=openai]");
        }

        @Test
        void refusesANullClient() {
            MeterRetryListener all = new MeterRetryListener(registry, List.of());
            assertThatNullPointerException().isThrownBy(() -> all.forClient(null))
                .withMessage("client must not be null");
        }
    }

    @Nested
    class UnderConcurrency {

        private static final int THREADS = 4;

        private static final int EVENTS = 20_000;

        @Test
        void countsEverySuccessOfSeveralThreadsExactly() throws Exception {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            AttemptEvent success = succeeded("openai", Operation.INVOKE);
            Concurrently.run(THREADS, (thread) -> {
                for (int i = 0; i < EVENTS; i++) {
                    one.attemptFinished(success);
                }
            });
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(THREADS * EVENTS);
        }

        @Test
        void countsEveryFailureExactlyWhenSeveralThreadsMeetItsTagsFirstAtOnce() throws Exception {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            AttemptEvent failure = failed("openai", 1);
            Concurrently.run(THREADS, (thread) -> {
                for (int i = 0; i < EVENTS; i++) {
                    one.attemptFinished(failure);
                }
            });
            assertThat(registry.find(MeterRetryListener.ATTEMPTS).tag("outcome", "retryable_failure").counters())
                .hasSize(1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "retryable_failure", "http_503"))
                .isEqualTo(THREADS * EVENTS);
        }

        @Test
        void countsEveryWaitAndExhaustionOfSeveralThreadsExactly() throws Exception {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            AttemptEvent failure = failed("openai", 1);
            ExhaustedException exhausted = new ExhaustedException(1, BUSY);
            Concurrently.run(THREADS, (thread) -> {
                for (int i = 0; i < EVENTS; i++) {
                    one.retryScheduled(failure, Duration.ofMillis(1));
                    one.exhausted(failure, exhausted);
                }
            });
            assertThat(RetryMeters.backoff(registry, "openai", "invoke").count()).isEqualTo(THREADS * EVENTS);
            assertThat(RetryMeters.exhausted(registry, "openai", "invoke")).isEqualTo(THREADS * EVENTS);
        }

        @Test
        void countsTheEventsOfClientsThatSeveralThreadsMeetFirstAtOnceExactly() throws Exception {
            MeterRetryListener all = new MeterRetryListener(registry, List.of());
            List<AttemptEvent> clients = List.of(succeeded("a", Operation.INVOKE), succeeded("b", Operation.INVOKE),
                    succeeded("c", Operation.STREAM));
            Concurrently.run(THREADS, (thread) -> {
                for (int i = 0; i < EVENTS; i++) {
                    for (AttemptEvent event : clients) {
                        all.attemptFinished(event);
                    }
                }
            });
            assertThat(RetryMeters.attempts(registry, "a", "invoke", "success", "none")).isEqualTo(THREADS * EVENTS);
            assertThat(RetryMeters.attempts(registry, "b", "invoke", "success", "none")).isEqualTo(THREADS * EVENTS);
            assertThat(RetryMeters.attempts(registry, "c", "stream", "success", "none")).isEqualTo(THREADS * EVENTS);
        }
    }

    @Nested
    class AsCounters {

        static Stream<Named<MeterRegistry>> registries() {
            return Stream.of(Named.of("a SimpleMeterRegistry", new SimpleMeterRegistry()),
                    Named.of("a CompositeMeterRegistry holding one",
                            new CompositeMeterRegistry().add(new SimpleMeterRegistry())));
        }

        @ParameterizedTest(name = "in {0}")
        @MethodSource("registries")
        void findsEverySeriesOfTheAttemptsAsACounter(MeterRegistry registry) {
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            one.attemptFinished(succeeded("openai", Operation.INVOKE));
            one.attemptFinished(succeeded("openai", Operation.STREAM));
            one.attemptFinished(failed("openai", 1));
            one.attemptFinished(new AttemptEvent("openai", Operation.STREAM, 1, new IllegalStateException("bug"), false));
            one.attemptFinished(new AttemptEvent("openai", Operation.INVOKE, 2, new CancellationException("gone"), false));
            List<List<String>> series = List.of(List.of("invoke", "success", "none"),
                    List.of("stream", "success", "none"), List.of("invoke", "retryable_failure", "http_503"),
                    List.of("stream", "failure", "IllegalStateException"), List.of("invoke", "failure", "cancelled"));
            assertThat(series).allSatisfy((tags) -> assertThat(
                    RetryMeters.attempts(registry, "openai", tags.get(0), tags.get(1), tags.get(2))).isEqualTo(1));
            assertThat(registry.find(MeterRetryListener.ATTEMPTS).meters()).hasSameSizeAs(series)
                .allSatisfy((meter) -> assertThat(meter).isInstanceOf(Counter.class));
        }
    }

    @Nested
    class AsMeters {

        @Test
        void describesTheAttemptCounters() {
            new MeterRetryListener(registry, List.of("openai"));
            Meter.Id success = registry.get(MeterRetryListener.ATTEMPTS).tags("client", "openai", "operation", "invoke")
                .counter()
                .getId();
            assertThat(success.getDescription()).isEqualTo("Attempts made by a retrying inference client");
            assertThat(success.getBaseUnit()).isNull();
        }

        @Test
        void addsUpTheAttemptsOfTwoClientsThatAFilterCountsAsOne() {
            registry.config().meterFilter(MeterFilter.ignoreTags("client"));
            RetryListener first = new MeterRetryListener(registry, List.of()).forClient("first");
            RetryListener second = new MeterRetryListener(registry, List.of()).forClient("second");
            succeed(first, "first", 2);
            succeed(second, "second", 3);
            Collection<Counter> successes = registry.find(MeterRetryListener.ATTEMPTS)
                .tags("operation", "invoke", "outcome", "success")
                .counters();
            assertThat(successes).hasSize(1);
            assertThat(RetryMeters.count(successes)).isEqualTo(5);
        }

        @Test
        void addsUpTheSuccessesAndFailuresThatAFilterCountsAsOne() {
            registry.config().meterFilter(MeterFilter.ignoreTags("outcome", "error"));
            RetryListener one = new MeterRetryListener(registry, List.of()).forClient("openai");
            succeed(one, "openai", 2);
            one.attemptFinished(failed("openai", 1));
            Collection<Counter> attempts = registry.find(MeterRetryListener.ATTEMPTS).tag("operation", "invoke").counters();
            assertThat(attempts).hasSize(1);
            assertThat(RetryMeters.count(attempts)).isEqualTo(3);
        }

        @Test
        void keepsCountingIntoAMeterOnceTheListenersThatCountedAreGone() {
            WeakReference<RetryListener> gone = countSuccessesWithAListenerDroppedAfterwards(3);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (gone.get() != null) {
                assertThat(System.nanoTime()).as("the listener is collected within 30 s").isLessThan(deadline);
                System.gc();
            }
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(3);
            succeed(new MeterRetryListener(registry, List.of()).forClient("openai"), "openai", 1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(4);
        }

        @Test
        void registersAMeterRemovedFromTheRegistryAnewAtZero() {
            succeed(new MeterRetryListener(registry, List.of()).forClient("openai"), "openai", 2);
            registry.remove(registry.get(MeterRetryListener.ATTEMPTS).tags("client", "openai", "operation", "invoke",
                    "outcome", "success").meter());
            RetryListener again = new MeterRetryListener(registry, List.of()).forClient("openai");
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isZero();
            succeed(again, "openai", 1);
            assertThat(RetryMeters.attempts(registry, "openai", "invoke", "success", "none")).isEqualTo(1);
        }

        private WeakReference<RetryListener> countSuccessesWithAListenerDroppedAfterwards(int successes) {
            RetryListener listener = new MeterRetryListener(registry, List.of()).forClient("openai");
            succeed(listener, "openai", successes);
            return new WeakReference<>(listener);
        }
    }

    @Nested
    class InACompositeRegistry {

        private final SimpleMeterRegistry merging = new SimpleMeterRegistry();

        private final SimpleMeterRegistry separate = new SimpleMeterRegistry();

        private final CompositeMeterRegistry composite = new CompositeMeterRegistry();

        InACompositeRegistry() {
            this.merging.config().meterFilter(MeterFilter.ignoreTags("client"));
            this.composite.add(this.merging).add(this.separate);
        }

        @Test
        void countsInEachRegistryAsThatRegistryMapsTheIds() {
            succeed(new MeterRetryListener(this.composite, List.of()).forClient("first"), "first", 2);
            succeed(new MeterRetryListener(this.composite, List.of()).forClient("second"), "second", 3);
            assertThat(RetryMeters.count(this.merging.find(MeterRetryListener.ATTEMPTS)
                .tags("operation", "invoke", "outcome", "success")
                .counters())).isEqualTo(5);
            assertThat(RetryMeters.attempts(this.separate, "first", "invoke", "success", "none")).isEqualTo(2);
            assertThat(RetryMeters.attempts(this.separate, "second", "invoke", "success", "none")).isEqualTo(3);
        }
    }

    private static void succeed(RetryListener listener, String client, int times) {
        for (int i = 0; i < times; i++) {
            listener.attemptFinished(succeeded(client, Operation.INVOKE));
        }
    }
}
