package dev.inference.benchmarks;

import dev.failsafe.FailsafeExecutor;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.RetryClient;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.internal.RetryImpl;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;

/**
 * The price of retrying, apart from waiting: every call fails {@code failures} times with a
 * preallocated {@code NetworkException} and then succeeds, through each library allowing exactly
 * {@code failures + 1} attempts with the smallest wait it allows.
 *
 * <p>{@code RetryClient} is given a sleeper that returns at once. Resilience4j, Spring Framework and
 * Failsafe have no such seam and call {@code Thread.sleep(0)} for a zero wait, a yield to the
 * scheduler; {@link #threadSleepZero} measures that alone so it can be told apart, and
 * {@link #resilience4jWithoutSleep} replaces Resilience4j's process-wide sleep function to show its
 * retry without it. Spring Retry without back-off does not sleep. The cost of one retry is the slope between {@code failures = 1}
 * and {@code failures = 3}: (time(3) − time(1)) / 2, which cancels what every call pays once.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch" })
public class RetryPathBenchmark {

    /** One thread's retriers around its own {@link FlakyClient}. */
    @State(Scope.Thread)
    public static class Calls {

        /** How many attempts of each call fail before one succeeds. */
        @Param({ "1", "3" })
        public int failures;

        final InferenceRequest request = InferenceRequest.of("bench-model", "Hello");

        final CallContext context = CallContext.background();

        InferenceClient inner;

        InferenceClient retryClient;

        Retry resilience4j;

        RetryTemplate springFramework;

        FailsafeExecutor<InferenceResponse> failsafe;

        org.springframework.retry.support.RetryTemplate springRetry;

        /** Builds the flaky client and every retrier once, before the first warm-up iteration. */
        @Setup
        public void setUp() {
            int maxAttempts = this.failures + 1;
            this.inner = new FlakyClient(this.failures, InferenceResponse.of("Hi"));
            this.retryClient = RetryClient.of(this.inner, Retriers.retrier(maxAttempts).build());
            this.resilience4j = Retriers.resilience4j(maxAttempts);
            this.springFramework = Retriers.springFramework(maxAttempts);
            this.failsafe = Retriers.failsafe(maxAttempts);
            this.springRetry = Retriers.springRetry(maxAttempts);
        }
    }

    /**
     * Replaces Resilience4j's sleep function, a static hook shared by every {@code Retry} in the JVM,
     * while a benchmark that uses this state runs (each benchmark has a JVM of its own).
     */
    @State(Scope.Benchmark)
    public static class NoResilience4jSleep {

        /** Makes Resilience4j's waits return at once. */
        @Setup
        public void setUp() {
            RetryImpl.setSleepFunction(millis -> {
            });
        }

        /** Puts Resilience4j's own sleep function back. */
        @TearDown
        public void tearDown() {
            RetryImpl.setSleepFunction(Thread::sleep);
        }
    }

    /**
     * {@code RetryClient} with a sleeper that does not wait.
     *
     * @param calls the retriers
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClient(Calls calls, Blackhole blackhole) {
        blackhole.consume(calls.retryClient.invoke(calls.request, calls.context));
    }

    /**
     * Resilience4j {@code Retry.executeSupplier} with a zero wait.
     *
     * @param calls the retriers
     * @param blackhole sinks the response
     */
    @Benchmark
    public void resilience4j(Calls calls, Blackhole blackhole) {
        blackhole.consume(calls.resilience4j.executeSupplier(() -> calls.inner.invoke(calls.request, calls.context)));
    }

    /**
     * Resilience4j as {@link #resilience4j}, with its sleep function replaced by one that returns at
     * once, like {@code RetryClient}'s sleeper here.
     *
     * @param calls the retriers
     * @param noSleep replaces the sleep function for the duration of the benchmark
     * @param blackhole sinks the response
     */
    @Benchmark
    public void resilience4jWithoutSleep(Calls calls, NoResilience4jSleep noSleep, Blackhole blackhole) {
        blackhole.consume(calls.resilience4j.executeSupplier(() -> calls.inner.invoke(calls.request, calls.context)));
    }

    /**
     * Spring Framework 7 {@code RetryTemplate.execute} with a zero delay.
     *
     * @param calls the retriers
     * @param blackhole sinks the response
     * @throws RetryException never: the last allowed attempt succeeds
     */
    @Benchmark
    public void springFramework(Calls calls, Blackhole blackhole) throws RetryException {
        blackhole.consume(calls.springFramework.execute(() -> calls.inner.invoke(calls.request, calls.context)));
    }

    /**
     * Failsafe {@code FailsafeExecutor.get} with its default zero delay.
     *
     * @param calls the retriers
     * @param blackhole sinks the response
     */
    @Benchmark
    public void failsafe(Calls calls, Blackhole blackhole) {
        blackhole.consume(calls.failsafe.get(() -> calls.inner.invoke(calls.request, calls.context)));
    }

    /**
     * Spring Retry {@code RetryTemplate.execute} without back-off.
     *
     * @param calls the retriers
     * @param blackhole sinks the response
     */
    @Benchmark
    public void springRetry(Calls calls, Blackhole blackhole) {
        blackhole.consume(calls.springRetry.execute(retryContext -> calls.inner.invoke(calls.request, calls.context)));
    }

    /**
     * What a zero wait costs the libraries that sleep for it: one {@code Thread.sleep(0)}.
     *
     * @throws InterruptedException if the benchmark thread is interrupted
     */
    @Benchmark
    public void threadSleepZero() throws InterruptedException {
        Thread.sleep(0);
    }
}
