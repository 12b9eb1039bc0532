package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Operation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class MeterRetryListenerTests {

    @Nested
    class ErrorTag {

        @Test
        void namesTheFirstTypedFailureInTheCauseChain() {
            RuntimeException wrapped = new IllegalStateException("wrapper",
                    new RuntimeException("inner", new HttpStatusException(502, "bad gateway", null)));
            assertThat(MeterRetryListener.errorTag(wrapped)).isEqualTo("http_502");
        }

        @Test
        void letsACancellationAnywhereInTheChainWin() {
            RuntimeException failure = new HttpStatusException(503, "busy", null);
            failure.initCause(new NetworkException("closed", new CancellationException("cancelled")));
            assertThat(MeterRetryListener.errorTag(failure)).isEqualTo("cancelled");
        }

        @Test
        void endsOnACyclicCauseChain() {
            RuntimeException first = new RuntimeException("first");
            IllegalArgumentException second = new IllegalArgumentException("second", first);
            first.initCause(second);
            assertThat(MeterRetryListener.errorTag(first)).isEqualTo("RuntimeException");
        }

        @Test
        void usesTheFullClassNameOfAnAnonymousFailure() {
            RuntimeException anonymous = new RuntimeException("anonymous") {
            };
            assertThat(MeterRetryListener.errorTag(anonymous)).isEqualTo(anonymous.getClass().getName());
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
        List<Counter> counters = registry.find(MeterRetryListener.ATTEMPTS).tag("outcome", "retryable_failure").counters()
            .stream().toList();
        assertThat(counters).hasSize(1);
        assertThat(counters.get(0).count()).isEqualTo(3);
    }

    @Test
    void registersTheMetersOfAClientFirstSeenInAnEvent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterRetryListener listener = new MeterRetryListener(registry, List.of());
        listener.attemptFinished(new AttemptEvent("late", Operation.STREAM, 1, null, false));
        assertThat(registry.get(MeterRetryListener.EXHAUSTED).tags("client", "late", "operation", "invoke").counter()
            .count()).isZero();
        assertThat(registry.get(MeterRetryListener.ATTEMPTS).tags("client", "late", "operation", "stream", "outcome",
                "success", "error", "none").counter().count()).isEqualTo(1);
    }
}
