package dev.inference.retry;

import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InferenceClient} that retries transient failures of another client.
 *
 * <p>For attempt 1, 2, ... up to the policy's {@code maxAttempts}, a call:
 * <ol>
 * <li>fails with the context's {@linkplain CallContext#failure() failure} if the context is done,
 * without another attempt;</li>
 * <li>calls the inner client with the <em>same</em> request and context objects, and on success
 * returns the result stamped with the number of attempts;</li>
 * <li>rethrows a failure that is not {@linkplain Classification retryable} as it is; throws an
 * {@link ExhaustedException} whose cause is the failure when it was the last attempt allowed; or else
 * waits the {@link Backoff} delay, which honours the provider's {@code Retry-After}.</li>
 * </ol>
 * The wait ends early when the context is cancelled ({@link CancellationException}), its deadline
 * passes ({@link DeadlineExceededException}; when the deadline falls inside the wait the call fails
 * at once instead of sleeping) or the thread is interrupted ({@link CancellationException}, with the
 * interrupt status restored). The failure that caused the wait is attached as suppressed to whatever
 * ends the call this way.
 *
 * <p>A stream is retried only while it is being established: once the inner client has returned a
 * reader, failures surface from that reader and are final. A reader carried by a
 * {@link HalfOpenStreamException} is closed before the next attempt and before giving up, and its
 * cause, never the wrapper, is classified, reported and thrown.
 *
 * <p>The client never changes the request, never refreshes credentials (the context's
 * {@link dev.inference.client.Authorizer} does, once per attempt), never catches an {@link Error}
 * and never retries an {@link ExhaustedException}, so nested decorators do not multiply attempts.
 * Instances are immutable and thread-safe; all state of a call lives in that call.
 */
public final class RetryClient implements InferenceClient {

    private static final String DEFAULT_NAME = "default";

    private final InferenceClient inner;

    private final Policy policy;

    private final String name;

    /** The contained listeners, or {@code null} when there are none, so that no event is made. */
    private final @Nullable RetryListener listener;

    /** The jitter source, or {@code null} for the calling thread's {@link ThreadLocalRandom}. */
    private final @Nullable RandomGenerator random;

    private final Sleeper sleeper;

    /** The event of a first attempt that succeeded, per operation ordinal: the same for every call. */
    private final AttemptEvent[] firstAttemptSucceeded;

    private RetryClient(Builder builder) {
        this.inner = builder.inner;
        this.policy = builder.policy;
        this.name = builder.name;
        this.listener = builder.listeners.isEmpty() ? null : new ContainedListener(builder.listeners);
        this.random = builder.random;
        this.sleeper = builder.sleeper;
        this.firstAttemptSucceeded = new AttemptEvent[Operation.values().length];
        for (Operation operation : Operation.values()) {
            this.firstAttemptSucceeded[operation.ordinal()] = new AttemptEvent(this.name, operation, 1, null, false);
        }
    }

    /**
     * Creates a client named {@code "default"} with no listener, real waits and random jitter.
     *
     * @param inner the client to retry
     * @param policy the retry policy, valid by construction
     * @return the retrying client
     * @throws NullPointerException if an argument is {@code null}
     */
    public static RetryClient create(InferenceClient inner, Policy policy) {
        return builder(inner, policy).build();
    }

    /**
     * Starts building a client.
     *
     * @param inner the client to retry
     * @param policy the retry policy, valid by construction
     * @return a builder with the name {@code "default"}, no listener, real waits and random jitter
     * @throws NullPointerException if an argument is {@code null}
     */
    public static Builder builder(InferenceClient inner, Policy policy) {
        return new Builder(inner, policy);
    }

    /**
     * Returns the client this one retries.
     *
     * @return the inner client
     */
    public InferenceClient inner() {
        return this.inner;
    }

    /**
     * Returns the retry policy.
     *
     * @return the policy
     */
    public Policy policy() {
        return this.policy;
    }

    /**
     * Returns the name reported to listeners, such as the Spring bean name.
     *
     * @return the name
     */
    public String name() {
        return this.name;
    }

    /**
     * Performs a unary call, retrying transient failures as described in the class documentation.
     *
     * @return the inner client's response stamped with the number of attempts made
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the context was cancelled or the thread interrupted
     * @throws DeadlineExceededException when the deadline passed, or would have during the wait
     * @throws RuntimeException the first permanent failure, as the inner client threw it
     */
    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        return execute(Step.INVOKE, request, context);
    }

    /**
     * Establishes a stream, retrying transient establishment failures as described in the class
     * documentation; once established, the stream's failures are final.
     *
     * @return the inner client's reader, whose {@link StreamReader#result()} is stamped with the
     *     number of establishment attempts
     * @throws ExhaustedException when every allowed attempt failed with a retryable failure
     * @throws CancellationException when the context was cancelled or the thread interrupted
     * @throws DeadlineExceededException when the deadline passed, or would have during the wait
     * @throws RuntimeException the first permanent failure, unwrapped from a
     *     {@link HalfOpenStreamException}
     */
    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        return execute(Step.STREAM, request, context);
    }

    /**
     * Makes the first attempt. Kept apart from {@link #retry} and small, so that the JIT inlines
     * the success path into the caller.
     */
    private <T> T execute(Step<T> step, InferenceRequest request, CallContext context) {
        Objects.requireNonNull(request, "request must not be null");
        Objects.requireNonNull(context, "context must not be null");
        Optional<RuntimeException> done = context.failure();
        if (done.isPresent()) {
            throw done.get();
        }
        T result;
        try {
            result = step.attempt(this.inner, request, context);
        }
        catch (RuntimeException ex) {
            return retry(step, request, context, ex);
        }
        return succeeded(step, result, 1);
    }

    /** Handles the failure of attempt n, waits, makes attempt n + 1, and so on. */
    private <T> T retry(Step<T> step, InferenceRequest request, CallContext context, RuntimeException firstFailure) {
        // Failures of the attempts before the current one, for an ExhaustedException.
        List<RuntimeException> recovered = null;
        List<Throwable> closeFailures = null;
        RuntimeException thrown = firstFailure;
        for (int attempt = 1;; attempt++) {
            RuntimeException failure = thrown;
            if (thrown instanceof HalfOpenStreamException halfOpen) {
                closeFailures = closeQuietly(halfOpen.reader(), closeFailures);
                failure = halfOpen.getCause();
            }
            RuntimeException deciding = Classification.decidingFailure(failure);
            AttemptEvent event = (this.listener != null)
                    ? new AttemptEvent(this.name, step.operation, attempt, failure, deciding != null) : null;
            if (this.listener != null && event != null) {
                this.listener.attemptFinished(event);
            }
            // Permanent: the caller gets the failure exactly as the inner client threw it.
            if (deciding == null) {
                throw suppressing(failure, null, closeFailures);
            }
            // Transient, but no attempt left: give up with the final failure as the cause.
            if (attempt >= this.policy.maxAttempts()) {
                ExhaustedException exhausted = new ExhaustedException(attempt, failure);
                suppressAll(exhausted, recovered);
                suppressAll(exhausted, closeFailures);
                if (this.listener != null && event != null) {
                    this.listener.exhausted(event, exhausted);
                }
                throw exhausted;
            }
            // The caller gave up while the attempt ran: no wait to schedule, no attempt to make.
            Optional<RuntimeException> done = context.failure();
            if (done.isPresent()) {
                throw suppressing(done.get(), failure, closeFailures);
            }
            Duration delay = Backoff.delay(this.policy, attempt, jitter(),
                    Classification.retryAfterOf(deciding).orElse(null));
            // Waiting past the deadline could only end in DeadlineExceededException: end now.
            Optional<Duration> remaining = context.timeRemaining();
            if (remaining.isPresent() && remaining.get().compareTo(delay) <= 0) {
                throw suppressing(new DeadlineExceededException("The call's deadline would pass during the "
                        + delay + " wait before attempt " + (attempt + 1)), failure, closeFailures);
            }
            if (this.listener != null && event != null) {
                this.listener.retryScheduled(event, delay);
            }
            try {
                this.sleeper.sleep(delay, context);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                CancellationException cancelled = new CancellationException(
                        "Interrupted during the " + delay + " wait before attempt " + (attempt + 1));
                cancelled.initCause(ex);
                throw suppressing(cancelled, failure, closeFailures);
            }
            // The caller may have given up during the wait.
            done = context.failure();
            if (done.isPresent()) {
                throw suppressing(done.get(), failure, closeFailures);
            }
            // Grown as needed: sized by maxAttempts, a policy allowing millions of attempts would
            // allocate an array that large on the first retry.
            recovered = (recovered != null) ? recovered : new ArrayList<>();
            recovered.add(failure);

            T result;
            try {
                result = step.attempt(this.inner, request, context);
            }
            catch (RuntimeException ex) {
                thrown = ex;
                continue;
            }
            return succeeded(step, result, attempt + 1);
        }
    }

    private <T> T succeeded(Step<T> step, T result, int attempt) {
        if (this.listener != null) {
            AttemptEvent event = (attempt == 1) ? this.firstAttemptSucceeded[step.operation.ordinal()]
                    : new AttemptEvent(this.name, step.operation, attempt, null, false);
            try {
                this.listener.attemptFinished(event);
            }
            catch (Error ex) {
                // The caller never gets the result, so nobody else could release it.
                step.release(result, ex);
                throw ex;
            }
        }
        return step.stamp(result, attempt);
    }

    private double jitter() {
        double unit = (this.random != null) ? this.random.nextDouble() : ThreadLocalRandom.current().nextDouble();
        // 0.9 + 0.2 * u rounds up to 1.1 for the largest doubles below 1; the bound is exclusive.
        return Math.min(Backoff.MIN_JITTER + 0.2 * unit, Math.nextDown(Backoff.MAX_JITTER));
    }

    private static @Nullable List<Throwable> closeQuietly(StreamReader reader, @Nullable List<Throwable> failures) {
        try {
            reader.close();
            return failures;
        }
        catch (RuntimeException ex) {
            List<Throwable> all = (failures != null) ? failures : new ArrayList<>(1);
            all.add(ex);
            return all;
        }
    }

    private static <X extends Throwable> X suppressing(X thrown, @Nullable Throwable cause,
            @Nullable List<Throwable> closeFailures) {
        if (cause != null && cause != thrown) {
            thrown.addSuppressed(cause);
        }
        suppressAll(thrown, closeFailures);
        return thrown;
    }

    private static void suppressAll(Throwable thrown, @Nullable List<? extends Throwable> suppressed) {
        if (suppressed != null) {
            for (Throwable each : suppressed) {
                if (each != thrown) {
                    thrown.addSuppressed(each);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "RetryClient[name=" + this.name + ", policy=" + this.policy + ", inner=" + this.inner + "]";
    }

    /** One kind of call: how to make an attempt and how to stamp its result. */
    private abstract static class Step<T> {

        static final Step<InferenceResponse> INVOKE = new Step<>(Operation.INVOKE) {

            @Override
            InferenceResponse attempt(InferenceClient inner, InferenceRequest request, CallContext context) {
                return Objects.requireNonNull(inner.invoke(request, context),
                        "The inner InferenceClient returned null from invoke");
            }

            @Override
            InferenceResponse stamp(InferenceResponse response, int attempts) {
                return response.withAttempts(attempts);
            }
        };

        static final Step<StreamReader> STREAM = new Step<>(Operation.STREAM) {

            @Override
            StreamReader attempt(InferenceClient inner, InferenceRequest request, CallContext context) {
                return Objects.requireNonNull(inner.stream(request, context),
                        "The inner InferenceClient returned null from stream");
            }

            @Override
            StreamReader stamp(StreamReader reader, int attempts) {
                return new StampedStreamReader(reader, attempts);
            }

            @Override
            void release(StreamReader reader, Throwable thrown) {
                try {
                    reader.close();
                }
                catch (RuntimeException ex) {
                    thrown.addSuppressed(ex);
                }
            }
        };

        final Operation operation;

        Step(Operation operation) {
            this.operation = operation;
        }

        abstract T attempt(InferenceClient inner, InferenceRequest request, CallContext context);

        abstract T stamp(T result, int attempts);

        /** Releases a result that will not reach the caller because {@code thrown} ends the call. */
        void release(T result, Throwable thrown) {
        }
    }

    /**
     * Builds a {@link RetryClient}. Not thread-safe; the built client keeps no reference to the
     * builder.
     */
    public static final class Builder {

        private final InferenceClient inner;

        private final Policy policy;

        private String name = DEFAULT_NAME;

        private final List<RetryListener> listeners = new ArrayList<>();

        private @Nullable RandomGenerator random;

        private Sleeper sleeper = Sleeper.system();

        private Builder(InferenceClient inner, Policy policy) {
            this.inner = Objects.requireNonNull(inner, "inner must not be null");
            this.policy = Objects.requireNonNull(policy, "policy must not be null");
        }

        /**
         * Sets the name reported to listeners in every {@link AttemptEvent}.
         *
         * @param name the client's name, such as its bean name; must not be blank
         * @return this builder
         * @throws NullPointerException if {@code name} is {@code null}
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name must not be null");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /**
         * Adds a listener. Listeners are told of each event in the order they were added; one that
         * throws a {@link RuntimeException} is logged and skipped, never breaking the call.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(RetryListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /**
         * Sets the source of jitter: each delay's factor is {@code 0.9 + 0.2 × nextDouble()}. By
         * default the calling thread's {@link ThreadLocalRandom} is used. The generator is called
         * from every thread that makes calls, so it must be thread-safe, or the client confined to
         * one thread.
         *
         * @param random the generator
         * @return this builder
         * @throws NullPointerException if {@code random} is {@code null}
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random must not be null");
            return this;
        }

        /**
         * Sets how backoff delays are waited out; by default {@link Sleeper#system()}, which really
         * waits. Tests pass a sleeper that advances a virtual clock.
         *
         * @param sleeper the sleeper
         * @return this builder
         * @throws NullPointerException if {@code sleeper} is {@code null}
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /**
         * Builds the client. The builder's listeners are copied, so adding more afterwards does not
         * change the built client.
         *
         * @return a new client
         */
        public RetryClient build() {
            return new RetryClient(this);
        }
    }
}
