package dev.inference.retry;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.client.HalfOpenStreamException;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InferenceClient} that retries transient failures of another client, with the decisions of
 * its {@link Retrier} in the order {@link RetryExecution} gives, waiting with the retrier's
 * {@linkplain Retrier.Builder#sleeper sleeper} (through a {@link BlockingRetry}).
 *
 * <p>Every attempt gets the <em>same</em> request, and the caller's context unless one of the
 * retrier's {@link Timeouts} applies: then each attempt gets a context of its own
 * ({@link dev.inference.client.AttemptScope}), done when the caller's is or when its timeout passes.
 * A success is stamped with the number of attempts made. A stream is retried only while it is being
 * established: once the inner client has returned a reader, failures surface from that reader and are
 * final. The client never changes the request, never refreshes credentials (the context's
 * {@link dev.inference.client.Authorizer} does, once per attempt) and never catches an {@link Error}.
 * With a cool-down store, a response, stream or failure that says it is
 * {@linkplain InferenceResponse#rateLimitedFor() rate-limited} cools the provider account down for
 * every caller (see {@link Retrier#rateLimited}).
 *
 * <p>Traps: an {@link ExhaustedException} from an inner client is never retried, so nested decorators
 * do not multiply attempts. Every event the inner reader returns counts as content for the timeouts:
 * an inner client leaves keep-alives out of its events. Immutable and thread-safe.
 */
public final class RetryClient implements InferenceClient {

    private final InferenceClient inner;

    /** Makes the attempts and waits between them, with the {@linkplain #retrier() retrier}'s decisions. */
    private final BlockingRetry blocking;

    private RetryClient(InferenceClient inner, Retrier retrier) {
        this.inner = inner;
        this.blocking = BlockingRetry.of(retrier);
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
     * Starts building a client with its name, listeners and jitter. For every other setting (the
     * sleeper, a retry budget, a cool-down store, an observer, a shutdown signal), build a
     * {@link Retrier} and use {@link #of}.
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
     * Creates a client that retries with the decisions of a retrier, and waits with its
     * {@linkplain Retrier.Builder#sleeper sleeper}.
     *
     * @param inner the client to retry
     * @param retrier the retry decisions and every setting of them
     * @return the retrying client, whose {@link #retrier()} is {@code retrier}
     * @throws NullPointerException if an argument is {@code null}
     */
    public static RetryClient of(InferenceClient inner, Retrier retrier) {
        return new RetryClient(Objects.requireNonNull(inner, "inner must not be null"),
                Objects.requireNonNull(retrier, "retrier must not be null"));
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
        return retrier().policy();
    }

    /**
     * Returns the name reported to listeners, such as the Spring bean name.
     *
     * @return the name
     */
    public String name() {
        return retrier().name();
    }

    /**
     * Returns the retry decisions this client makes, for a caller that makes attempts its own way
     * (a non-blocking one, for example) with the same policy, name and listeners.
     *
     * @return the retrier
     */
    public Retrier retrier() {
        return this.blocking.retrier();
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

    private <T> T execute(Step<T> step, InferenceRequest request, CallContext context) {
        Objects.requireNonNull(request, "request must not be null");
        Objects.requireNonNull(context, "context must not be null");
        return this.blocking.call(step.operation, context, new StepAttempts<>(step, request, context));
    }

    @Override
    public String toString() {
        return "RetryClient[name=" + name() + ", policy=" + policy() + ", inner=" + this.inner + "]";
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

            @Override
            Optional<Duration> rateLimitedFor(InferenceResponse response) {
                return response.rateLimitedFor();
            }

            @Override
            @Nullable AttemptScope startAttempt(CallContext caller, Timeouts timeouts, AttemptScope.Timer timer) {
                Optional<Duration> timeout = timeouts.attempt();
                return timeout.isPresent() ? caller.startAttempt(timeout.get(), timer) : null;
            }

            @Override
            InferenceResponse established(InferenceResponse response, AttemptScope scope, Retrier retrier) {
                scope.close();
                return response;
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
            Optional<Duration> rateLimitedFor(StreamReader reader) {
                return reader.rateLimitedFor();
            }

            @Override
            @Nullable AttemptScope startAttempt(CallContext caller, Timeouts timeouts, AttemptScope.Timer timer) {
                Optional<Duration> timeout = timeouts.firstToken();
                if (timeout.isPresent()) {
                    return caller.startAttempt(timeout.get(), timer);
                }
                return timeouts.streamIdle().isPresent() ? caller.startAttempt() : null;
            }

            @Override
            StreamReader established(StreamReader reader, AttemptScope scope, Retrier retrier) {
                // Established: the first-token timeout no longer applies; the idle timeout, if any, does.
                scope.cancelTimeout();
                try {
                    return WatchedStreamReader.watch(reader, scope, retrier.timeouts().streamIdle().orElse(null),
                            retrier);
                }
                catch (RuntimeException ex) {
                    // The timer refused the watch (its executor shut down): the stream goes unread, so it is closed.
                    scope.close();
                    release(reader, ex);
                    throw ex;
                }
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

        /** What a successful result says of the provider's rate limit. */
        abstract Optional<Duration> rateLimitedFor(T result);

        /** Releases a result that will not reach the caller because {@code thrown} ends the call. */
        void release(T result, Throwable thrown) {
        }

        /**
         * Starts an attempt's scope when a timeout acts on this kind of attempt, or returns
         * {@code null} when none does (the attempt then runs on the caller's context, as it always did).
         */
        abstract @Nullable AttemptScope startAttempt(CallContext caller, Timeouts timeouts, AttemptScope.Timer timer);

        /** Hands over the result of an attempt that ran in {@code scope} in time; the scope is then the result's to close. */
        abstract T established(T result, AttemptScope scope, Retrier retrier);
    }

    /** The attempts of one call of a kind, for the loop that retries them. */
    private final class StepAttempts<T> implements BlockingRetry.Attempts<T, RuntimeException> {

        private final Step<T> step;

        private final InferenceRequest request;

        private final CallContext context;

        StepAttempts(Step<T> step, InferenceRequest request, CallContext context) {
            this.step = step;
            this.request = request;
            this.context = context;
        }

        @Override
        public T attempt(int attempt) {
            Retrier retrier = RetryClient.this.retrier();
            AttemptScope scope = this.step.startAttempt(this.context, retrier.timeouts(), retrier.timer());
            if (scope == null) {
                return this.step.attempt(RetryClient.this.inner, this.request, this.context);
            }
            T result;
            try {
                result = this.step.attempt(RetryClient.this.inner, this.request, scope.context());
            }
            catch (RuntimeException ex) {
                scope.close();
                RuntimeException failure = scope.failureFor(ex);
                if (failure != ex && ex instanceof HalfOpenStreamException halfOpen) {
                    // Typed as the timeout, the failure no longer carries the reader to the loop that closes it.
                    Step.STREAM.release(halfOpen.reader(), failure);
                }
                throw failure;
            }
            catch (Error ex) {
                scope.close();
                throw ex;
            }
            if (scope.timedOut() && !this.context.isDone()) {
                // Returned after its timeout: abandoned all the same, so nothing of it reaches the caller.
                RuntimeException late = scope.failureFor(new CancellationException(
                        "The attempt returned after its timeout; its result was released"));
                scope.close();
                this.step.release(result, late);
                throw late;
            }
            return this.step.established(result, scope, retrier);
        }

        @Override
        public void release(T result, Throwable thrown) {
            this.step.release(result, thrown);
        }

        @Override
        public T succeeded(T result, int attempts) {
            return this.step.stamp(result, attempts);
        }

        @Override
        public Optional<Duration> rateLimitedFor(T result) {
            return this.step.rateLimitedFor(result);
        }
    }

    /**
     * Builds a {@link RetryClient}: a shorthand for the settings most clients need (name, listeners,
     * jitter), each handed to a {@link Retrier.Builder}. Every other setting is made on a
     * {@link Retrier.Builder} itself, and the client with {@link RetryClient#of}. Not thread-safe;
     * the built client keeps no reference to the builder.
     */
    public static final class Builder {

        private final InferenceClient inner;

        private final Retrier.Builder retrier;

        private Builder(InferenceClient inner, Policy policy) {
            this.inner = Objects.requireNonNull(inner, "inner must not be null");
            this.retrier = Retrier.builder(Objects.requireNonNull(policy, "policy must not be null"));
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
            this.retrier.name(name);
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
            this.retrier.listener(listener);
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
            this.retrier.random(random);
            return this;
        }

        /**
         * Builds the client. The builder's listeners are copied, so adding more afterwards does not
         * change the built client.
         *
         * @return a new client
         */
        public RetryClient build() {
            return of(this.inner, this.retrier.build());
        }
    }
}
