package dev.inference.benchmarks;

import dev.failsafe.FailsafeExecutor;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.autoconfigure.MeterRetryListener;
import io.github.resilience4j.retry.Retry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;

/**
 * The price of a retry decorator when nothing fails: every benchmark makes the same trivial call,
 * which returns a preallocated response, directly ({@link #direct}, the floor) or through one retry
 * library allowing three attempts.
 *
 * <p>{@code RetryClient} must stamp the response with the number of attempts, so it allocates one
 * {@link InferenceResponse} per call by contract; anything beyond that is overhead. Each peer is
 * called the way an application would call it for a request that differs per call: with a lambda
 * made at the call site.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch" })
@State(Scope.Benchmark)
public class SuccessPathBenchmark {

    private static final int MAX_ATTEMPTS = 3;

    private final InferenceRequest request = InferenceRequest.of("bench-model", "Hello");

    private final CallContext context = CallContext.background();

    private InferenceClient inner;

    private InferenceClient retryClient;

    private InferenceClient retryClientWithMetrics;

    private Retry resilience4j;

    private RetryTemplate springFramework;

    private FailsafeExecutor<InferenceResponse> failsafe;

    private org.springframework.retry.support.RetryTemplate springRetry;

    /** Builds the client and every retrier once, before the first warm-up iteration. */
    @Setup
    public void setUp() {
        this.inner = new FixedResponseClient(InferenceResponse.of("Hi"));
        this.retryClient = Retriers.retryClient(this.inner, MAX_ATTEMPTS).build();
        this.retryClientWithMetrics = Retriers.retryClient(this.inner, MAX_ATTEMPTS)
                .listener(new MeterRetryListener(new SimpleMeterRegistry(), List.of("bench")))
                .build();
        this.resilience4j = Retriers.resilience4j(MAX_ATTEMPTS);
        this.springFramework = Retriers.springFramework(MAX_ATTEMPTS);
        this.failsafe = Retriers.failsafe(MAX_ATTEMPTS);
        this.springRetry = Retriers.springRetry(MAX_ATTEMPTS);
    }

    /**
     * The floor: the call without any decorator.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void direct(Blackhole blackhole) {
        blackhole.consume(this.inner.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} without listeners.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClient(Blackhole blackhole) {
        blackhole.consume(this.retryClient.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} with the starter's Micrometer listener, which counts each attempt in
     * {@code inference.retry.attempts}, as the auto-configuration sets it up.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithMetrics(Blackhole blackhole) {
        blackhole.consume(this.retryClientWithMetrics.invoke(this.request, this.context));
    }

    /**
     * Resilience4j {@code Retry.executeSupplier}.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void resilience4j(Blackhole blackhole) {
        blackhole.consume(this.resilience4j.executeSupplier(() -> this.inner.invoke(this.request, this.context)));
    }

    /**
     * Spring Framework 7 {@code org.springframework.core.retry.RetryTemplate.execute}.
     *
     * @param blackhole sinks the response
     * @throws RetryException never: the call succeeds
     */
    @Benchmark
    public void springFramework(Blackhole blackhole) throws RetryException {
        blackhole.consume(this.springFramework.execute(() -> this.inner.invoke(this.request, this.context)));
    }

    /**
     * Failsafe {@code FailsafeExecutor.get} with a {@code RetryPolicy}.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void failsafe(Blackhole blackhole) {
        blackhole.consume(this.failsafe.get(() -> this.inner.invoke(this.request, this.context)));
    }

    /**
     * Spring Retry {@code org.springframework.retry.support.RetryTemplate.execute}.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void springRetry(Blackhole blackhole) {
        blackhole.consume(this.springRetry.execute(retryContext -> this.inner.invoke(this.request, this.context)));
    }
}
