package dev.inference.benchmarks;

import dev.failsafe.FailsafeExecutor;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.MeterRetryListener;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
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
 *
 * <p>With meters: {@link #retryClientWithStarterMeters} is the client bean as the starter's
 * auto-configurations wrap it when the application has a {@code MeterRegistry}, which is how every
 * starter user runs it; {@link #resilience4jWithMeters} is Resilience4j's retry with its own
 * Micrometer binder. Both count into a {@link SimpleMeterRegistry}. {@link #directCounted} and
 * {@link #retryClientCounted} add one uncontended {@link LongAdder} increment to the direct call and
 * to {@code RetryClient}: what counting every call with an atomic add costs.
 * {@link #directWithSuccessMeter} adds instead what the starter's meter listener does for a successful
 * attempt (one {@code Counter.increment()} of the registry's counter, resolved beforehand): the
 * meters' own cost, apart from {@code RetryClient}. {@link #retryClientWithStarterMetersInComposite} is
 * the starter's client bean in an application whose {@code MeterRegistry} is a
 * {@code CompositeMeterRegistry}, as Spring Boot makes one when more than one registry is configured:
 * there each increment goes through the composite's counter to that of the registry it holds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch" })
@State(Scope.Benchmark)
public class SuccessPathBenchmark {

    private static final int MAX_ATTEMPTS = 3;

    /** Long enough never to pass during a call: what is measured is arming and disarming the timer. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final InferenceRequest request = InferenceRequest.of("bench-model", "Hello");

    private final CallContext context = CallContext.background();

    private final LongAdder calls = new LongAdder();

    private InferenceClient inner;

    private InferenceClient retryClient;

    private InferenceClient retryClientWithMetrics;

    private InferenceClient retryClientWithBudget;

    private InferenceClient retryClientWithTimeouts;

    private final AttemptEvent success = new AttemptEvent(StarterContext.CLIENT, Operation.INVOKE, 1, null, false);

    private RetryListener successMeter;

    private Retry resilience4j;

    private RetryTemplate springFramework;

    private FailsafeExecutor<InferenceResponse> failsafe;

    private org.springframework.retry.support.RetryTemplate springRetry;

    /** Builds the client and every retrier once, before the first warm-up iteration. */
    @Setup
    public void setUp() {
        this.inner = new FixedResponseClient(InferenceResponse.of("Hi"));
        this.retryClient = RetryClient.of(this.inner, Retriers.retrier(MAX_ATTEMPTS).build());
        this.retryClientWithMetrics = RetryClient.of(this.inner, Retriers.retrier(MAX_ATTEMPTS)
                .listener(new MeterRetryListener(new SimpleMeterRegistry(), List.of("bench")))
                .build());
        this.retryClientWithBudget = RetryClient.of(this.inner, Retriers.retrier(MAX_ATTEMPTS)
                .budget(RetryBudget.of(10, new BigDecimal("0.1")))
                .build());
        this.retryClientWithTimeouts = RetryClient.of(this.inner, Retriers.retrier(MAX_ATTEMPTS)
                .timeouts(Timeouts.none().withAttempt(TIMEOUT).withFirstToken(TIMEOUT).withStreamIdle(TIMEOUT))
                .build());
        this.successMeter = new MeterRetryListener(new SimpleMeterRegistry(), List.of()).forClient(StarterContext.CLIENT);
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
     * {@code RetryClient} without listeners, with the three timeouts set: each attempt gets a context of
     * its own and a timer task, cancelled when the attempt ends.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithTimeouts(Blackhole blackhole) {
        blackhole.consume(this.retryClientWithTimeouts.invoke(this.request, this.context));
    }

    /**
     * The direct call, counted once in a {@link LongAdder}: the floor of any thread-safe count of
     * every call.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void directCounted(Blackhole blackhole) {
        this.calls.increment();
        blackhole.consume(this.inner.invoke(this.request, this.context));
    }

    /**
     * The direct call, and then what the listener that the starter attaches to a client does when an
     * attempt succeeds: the cost of the starter's meters on the success path, apart from
     * {@code RetryClient}.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void directWithSuccessMeter(Blackhole blackhole) {
        this.successMeter.attemptFinished(this.success);
        blackhole.consume(this.inner.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} without listeners and with a retry budget (10 tokens, 0.1 per success): a
     * successful call of a healthy provider finds the bucket full and returns nothing to it, which
     * costs one read.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithBudget(Blackhole blackhole) {
        blackhole.consume(this.retryClientWithBudget.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} without listeners, each call counted once in a {@link LongAdder} by the
     * caller: the floor of a retrying client whose every call is counted thread-safely.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientCounted(Blackhole blackhole) {
        this.calls.increment();
        blackhole.consume(this.retryClient.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} with a {@link MeterRetryListener} made by its public constructor and added
     * as it is, as a hand-built client may use it; it counts each attempt in
     * {@code inference.retry.attempts}.
     *
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithMetrics(Blackhole blackhole) {
        blackhole.consume(this.retryClientWithMetrics.invoke(this.request, this.context));
    }

    /**
     * The client bean of a {@link StarterContext}: wrapped, with the starter's meters attached, by the
     * auto-configurations.
     *
     * @param starter the started context
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithStarterMeters(Starter starter, Blackhole blackhole) {
        blackhole.consume(starter.client.invoke(this.request, this.context));
    }

    /**
     * The client bean of a {@link StarterContext} whose {@code MeterRegistry} is a
     * {@link CompositeMeterRegistry} holding one {@link SimpleMeterRegistry}: the starter's meters
     * counting through the composite's counters.
     *
     * @param starter the started context
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithStarterMetersInComposite(CompositeStarter starter, Blackhole blackhole) {
        blackhole.consume(starter.client.invoke(this.request, this.context));
    }

    /**
     * {@code RetryClient} as the starter wraps a bean with {@code inference.retry.observations.enabled=true}:
     * its meters, plus an {@code Observation} per attempt handled by Micrometer's
     * {@code DefaultMeterObservationHandler}, which records a timer per observation as the actuator's
     * set-up does. What opting in to observations costs.
     *
     * @param starter the started context, with observations on
     * @param blackhole sinks the response
     */
    @Benchmark
    public void retryClientWithStarterObservations(ObservedStarter starter, Blackhole blackhole) {
        blackhole.consume(starter.client.invoke(this.request, this.context));
    }

    /**
     * Resilience4j {@code Retry.executeSupplier}, for a retry whose registry is bound to a
     * {@link SimpleMeterRegistry} by Resilience4j's {@code TaggedRetryMetrics}.
     *
     * @param metered the retry and its meters
     * @param blackhole sinks the response
     */
    @Benchmark
    public void resilience4jWithMeters(MeteredResilience4j metered, Blackhole blackhole) {
        blackhole.consume(metered.retry.executeSupplier(() -> this.inner.invoke(this.request, this.context)));
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

    /**
     * The starter's client bean with observations on, in a context started once per fork: only the
     * benchmark that takes it pays for the context.
     */
    @State(Scope.Benchmark)
    public static class ObservedStarter {

        private StarterContext started;

        InferenceClient client;

        /** Starts the context with observations on. */
        @Setup
        public void start() {
            this.started = new StarterContext(new FixedResponseClient(InferenceResponse.of("Hi")), MAX_ATTEMPTS, true);
            this.client = this.started.client();
        }

        /** Closes the context. */
        @TearDown
        public void stop() {
            this.started.close();
        }
    }

    /**
     * The starter's client bean, with its meters and no observations, in a context started once per
     * fork: only the benchmarks that take it pay for the context.
     */
    @State(Scope.Benchmark)
    public static class Starter {

        private StarterContext started;

        InferenceClient client;

        /**
         * Starts the context and checks that its client bean is a retrying one.
         *
         * @throws IllegalStateException if the auto-configurations did not wrap the bean
         */
        @Setup
        public void start() {
            this.started = new StarterContext(new FixedResponseClient(InferenceResponse.of("Hi")), MAX_ATTEMPTS);
            this.client = this.started.client();
            if (!(this.client instanceof RetryClient)) {
                throw new IllegalStateException("The auto-configurations did not wrap the client: " + this.client);
            }
        }

        /** Closes the context. */
        @TearDown
        public void stop() {
            this.started.close();
        }
    }

    /**
     * The starter's client bean, with its meters counting into a {@link CompositeMeterRegistry}, in a
     * context started once per fork.
     */
    @State(Scope.Benchmark)
    public static class CompositeStarter {

        private StarterContext started;

        InferenceClient client;

        /** Starts the context, its registry bean a composite holding one simple registry. */
        @Setup
        public void start() {
            CompositeMeterRegistry composite = new CompositeMeterRegistry().add(new SimpleMeterRegistry());
            this.started = new StarterContext(new FixedResponseClient(InferenceResponse.of("Hi")), MAX_ATTEMPTS,
                    false, composite);
            this.client = this.started.client();
        }

        /** Closes the context. */
        @TearDown
        public void stop() {
            this.started.close();
        }
    }

    /** A Resilience4j retry made by a {@link RetryRegistry} whose meters are bound to a registry. */
    @State(Scope.Benchmark)
    public static class MeteredResilience4j {

        final MeterRegistry meters = new SimpleMeterRegistry();

        Retry retry;

        /** Binds the retry registry's meters, then makes the retry, which the binder then meters. */
        @Setup
        public void setUp() {
            RetryRegistry retries = RetryRegistry.of(Retriers.resilience4jConfig(MAX_ATTEMPTS));
            TaggedRetryMetrics.ofRetryRegistry(retries).bindTo(this.meters);
            this.retry = retries.retry("bench");
        }
    }
}
