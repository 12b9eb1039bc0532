package dev.inference.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.AttemptTimeoutException;
import dev.inference.retry.ExhaustedException;
import dev.inference.sample.provider.Outcome;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * No leak from abandoned attempts: after 200 attempts of the sample's real client that the
 * attempt timeout abandoned, the provider has no connection left open and the JVM no more threads
 * than before (both polled with a deadline: connections close, and idle threads end, a little after).
 */
@SampleAppTest
@TestPropertySource(properties = { "inference.retry.attempt-timeout=50ms", "sample.provider.slow-delay=30s",
        "inference.retry.clients.openai.max-attempts=1", "inference.retry.clients.openai.stable-retries=0" })
class AbandonedAttemptsLeakIntegrationTests extends AgainstTheSample {

    private static final int ABANDONED = 200;

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-4o-mini", "hi");

    @Autowired
    private InferenceClient openai;

    @Test
    void leavesNoConnectionOrThreadBehindAfter200AbandonedAttempts() {
        // A few first, so that the pools a first call starts (the HTTP client's, the timer's) exist before counting.
        abandon(5);
        awaitAtMost(provider::openConnections, 0);
        Set<String> before = threadNames();
        long ownBefore = ownThreadCount();

        abandon(ABANDONED);

        awaitAtMost(provider::openConnections, 0);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((!before.containsAll(ownThreads()) || ownThreadCount() > ownBefore) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(ownThreads()).as("live threads but the cached pools' workers").isSubsetOf(before);
        assertThat(ownThreadCount()).isLessThanOrEqualTo(ownBefore);
        // The JDK HTTP client's workers and the provider's connection threads are cached pools, whose idle
        // threads end 60 s after their last task: a leak per attempt would leave hundreds, a busy moment a few.
        assertThat(cachedPoolWorkers(threadNames())).isLessThanOrEqualTo(cachedPoolWorkers(before) + 4);
    }

    private static Set<String> ownThreads() {
        Set<String> names = threadNames();
        names.removeIf(AbandonedAttemptsLeakIntegrationTests::isCachedPoolWorker);
        return names;
    }

    /** Live threads, those of the cached pools left out, counted with their duplicate names. */
    private static long ownThreadCount() {
        return Thread.getAllStackTraces().keySet().stream()
            .filter((thread) -> thread.isAlive() && !isCachedPoolWorker(thread.getName()))
            .count();
    }

    private static long cachedPoolWorkers(Set<String> names) {
        return names.stream().filter(AbandonedAttemptsLeakIntegrationTests::isCachedPoolWorker).count();
    }

    /**
     * The JDK HTTP client's workers, the provider's connection threads and the request threads of an
     * embedded Tomcat left running by another test's context: pools that grow under a burst and shrink
     * after their idle time, whatever the starter does.
     */
    private static boolean isCachedPoolWorker(String name) {
        return (name.startsWith("HttpClient-") && name.contains("-Worker-")) || name.startsWith("flaky-provider-")
                || (name.startsWith("http-nio-") && name.contains("-exec-"));
    }

    private void abandon(int attempts) {
        Outcome[] slow = new Outcome[attempts];
        Arrays.fill(slow, Outcome.SLOW);
        provider.script(slow);
        for (int i = 0; i < attempts; i++) {
            assertThatExceptionOfType(ExhaustedException.class)
                .isThrownBy(() -> this.openai.invoke(REQUEST, CallContext.cancellable()))
                .withCauseInstanceOf(AttemptTimeoutException.class);
        }
    }

    private static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Polls until the value is at most {@code limit}, for 30 seconds at most. */
    private static void awaitAtMost(IntSupplier value, int limit) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (value.getAsInt() > limit && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(value.getAsInt()).isLessThanOrEqualTo(limit);
    }
}
