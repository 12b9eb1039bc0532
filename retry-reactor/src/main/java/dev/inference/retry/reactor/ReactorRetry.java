package dev.inference.retry.reactor;

import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.retry.AsyncRetry;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryExecution;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.SynchronousSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.retry.Retry;

/**
 * Retries a {@link Mono}, or the establishment of a {@link Flux}, through the core's non-blocking loop
 * ({@link AsyncRetry}): the decisions (in the order {@link RetryExecution} gives) and listener events
 * that a blocking {@link RetryClient} of the same retrier would make for the same failures.
 *
 * <pre>{@code
 * ReactorRetry retry = ReactorRetry.of(Retrier.builder(policy).name("openai").build());
 * Mono<String> answer = retry.mono(Mono.defer(() -> provider.complete(prompt)), CallContext.withTimeout(timeout));
 * Flux<String> chunks = provider.streamCompletion(prompt).transform(retry::flux);
 * }</pre>
 *
 * <p>Each subscription is one call, which subscribes to the source once per attempt, so the source must
 * be cold. The waits end on the {@link Scheduler}'s timer, with no thread blocked; cancelling the
 * subscription ends a wait, and the source is not subscribed to again. A {@link Flux} is retried only
 * until it is established (its first element, or a completion without any): from then on every signal
 * passes through untouched, so no element is emitted twice. A failure that is not a
 * {@link RuntimeException} ends the call as it is, untold to the listeners.
 *
 * <p>Traps: the context reaches an attempt in progress only through the source, as it reaches the inner
 * client of a {@link RetryClient}. An element whose success a listener's {@link Error} kept back goes to
 * Reactor's discard hook ({@code doOnDiscard}). Immutable and thread-safe.
 */
public final class ReactorRetry {

    /** What the loop's call for the next attempt emits, for {@code retryWhen} to subscribe again. */
    private static final Long NEXT = 0L;

    private final Retrier retrier;

    /** The scheduler of the waits, or {@code null} for {@link Schedulers#parallel()} at each wait. */
    private final @Nullable Scheduler scheduler;

    private final AsyncRetry loop;

    private ReactorRetry(Retrier retrier, @Nullable Scheduler scheduler) {
        this.retrier = retrier;
        this.scheduler = scheduler;
        this.loop = AsyncRetry.of(retrier, this::schedule);
    }

    /**
     * Returns the operator that retries with a retrier's decisions and waits on
     * {@link Schedulers#parallel()}. The scheduler is looked up at each wait, so that a virtual-time
     * scheduler installed by a test (such as {@code StepVerifier.withVirtualTime}) is used.
     *
     * @param retrier the policy, name and listeners of the calls; a {@link RetryClient}'s
     *     {@link RetryClient#retrier()} gives the same decisions and events as that client
     * @return the operator
     * @throws NullPointerException if {@code retrier} is {@code null}
     */
    public static ReactorRetry of(Retrier retrier) {
        return new ReactorRetry(Objects.requireNonNull(retrier, "retrier must not be null"), null);
    }

    /**
     * Returns the operator that retries with a retrier's decisions and waits on the given
     * scheduler's timer.
     *
     * @param retrier the policy, name and listeners of the calls
     * @param scheduler the scheduler whose timer ends each wait, and on whose thread the source is
     *     then subscribed to again
     * @return the operator
     * @throws NullPointerException if an argument is {@code null}
     */
    public static ReactorRetry of(Retrier retrier, Scheduler scheduler) {
        return new ReactorRetry(Objects.requireNonNull(retrier, "retrier must not be null"),
                Objects.requireNonNull(scheduler, "scheduler must not be null"));
    }

    /**
     * Returns the retrier whose decisions and listeners this operator uses.
     *
     * @return the retrier
     */
    public Retrier retrier() {
        return this.retrier;
    }

    /**
     * Retries a {@link Mono} with the {@linkplain CallContext#background() background} context: one
     * that no one can cancel and that has no deadline. Usable as {@code mono.transform(retry::mono)}.
     *
     * @param <T> the type of the value
     * @param source the cold publisher of one attempt, subscribed to once per attempt
     * @return a {@link Mono} whose every subscription is one call, as the class documentation describes
     * @throws NullPointerException if {@code source} is {@code null}
     */
    public <T> Mono<T> mono(Mono<T> source) {
        return mono(source, CallContext.background());
    }

    /**
     * Retries a {@link Mono} until it succeeds with a value or empty, as the class documentation
     * describes. Listeners hear of {@link Operation#INVOKE} attempts.
     *
     * @param <T> the type of the value
     * @param source the cold publisher of one attempt, subscribed to once per attempt
     * @param context the cancellation and deadline of the call, shared by its attempts and by every
     *     subscription to the returned publisher
     * @return a {@link Mono} whose every subscription is one call: it emits the value (or completes
     *     empty) of the first attempt that succeeds, or signals the exception the execution gave up with:
     *     {@link ExhaustedException}, {@link CancellationException}, {@link DeadlineExceededException},
     *     or the first permanent failure as the source signalled it
     * @throws NullPointerException if an argument is {@code null}
     */
    public <T> Mono<T> mono(Mono<T> source, CallContext context) {
        Objects.requireNonNull(source, "source must not be null");
        Objects.requireNonNull(context, "context must not be null");
        return Mono.defer(() -> {
            Call call = new Call();
            call.start(Operation.INVOKE, context);
            // The value's success is told in handle(), which can discard it; an empty completion's here.
            Mono<T> attempt = source.<T>handle(call::succeeded).doOnSuccess(call::succeeded);
            return call.firstAttempt().then(attempt.retryWhen(call.retry())).doOnCancel(call::cancel);
        });
    }

    /**
     * Retries the establishment of a {@link Flux} with the {@linkplain CallContext#background()
     * background} context: one that no one can cancel and that has no deadline. Usable as
     * {@code flux.transform(retry::flux)}.
     *
     * @param <T> the type of the elements
     * @param source the cold publisher of one attempt, subscribed to once per attempt
     * @return a {@link Flux} whose every subscription is one call, as the class documentation describes
     * @throws NullPointerException if {@code source} is {@code null}
     */
    public <T> Flux<T> flux(Flux<T> source) {
        return flux(source, CallContext.background());
    }

    /**
     * Retries a {@link Flux} until it is established: until it emits its first element, or completes
     * without any. From then on it is passed through untouched, its errors included. Listeners hear of
     * {@link Operation#STREAM} attempts.
     *
     * @param <T> the type of the elements
     * @param source the cold publisher of one attempt, subscribed to once per attempt
     * @param context the cancellation and deadline of the call, shared by its attempts and by every
     *     subscription to the returned publisher
     * @return a {@link Flux} whose every subscription is one call: it emits the elements of the first
     *     attempt that is established, and ends as that attempt ends; or it signals, before any element,
     *     the exception the execution gave up with: {@link ExhaustedException},
     *     {@link CancellationException}, {@link DeadlineExceededException}, or the first permanent
     *     failure as the source signalled it
     * @throws NullPointerException if an argument is {@code null}
     */
    public <T> Flux<T> flux(Flux<T> source, CallContext context) {
        Objects.requireNonNull(source, "source must not be null");
        Objects.requireNonNull(context, "context must not be null");
        return Flux.defer(() -> {
            Call call = new Call();
            call.start(Operation.STREAM, context);
            Flux<T> attempt = source.<T>handle(call::succeeded).doOnComplete(() -> call.succeeded(null));
            return call.firstAttempt().thenMany(attempt.retryWhen(call.retry())).doOnCancel(call::cancel);
        });
    }

    private Scheduler scheduler() {
        return (this.scheduler != null) ? this.scheduler : Schedulers.parallel();
    }

    /** Ends a wait of the loop on the scheduler's timer, on whose thread the source is subscribed to again. */
    private WaitScheduler.Scheduled schedule(Duration delay, WaitScheduler.Wait wait) {
        Disposable timer = scheduler().schedule(wait::elapsed, Durations.toWaitNanos(delay), TimeUnit.NANOSECONDS);
        return timer::dispose;
    }

    @Override
    public String toString() {
        return "ReactorRetry[retrier=" + this.retrier + ", scheduler="
                + ((this.scheduler != null) ? this.scheduler : "parallel") + "]";
    }

    /**
     * One subscription, which is one call: the loop's attempts, each a subscription to the source that
     * Reactor's {@code retryWhen} makes when the loop asks for it. Its signals are serialized (Reactive
     * Streams rule 1.3), and the loop asks for the next attempt only after the last one told its outcome.
     */
    private final class Call implements AsyncRetry.Attempts<Object> {

        /** Completed when the loop makes the next attempt; failed with what ends the call. */
        private volatile CompletableFuture<@Nullable Void> next = new CompletableFuture<>();

        /** The attempt in flight. */
        private volatile AsyncRetry.@Nullable Attempt<Object> current;

        /** The call's outcome, cancelled with the subscription. */
        private volatile @Nullable CompletableFuture<Object> outcome;

        /** Whether the subscription was cancelled. */
        private volatile boolean cancelled;

        /** Whether an attempt succeeded: from then on, every signal passes through untouched. */
        private boolean settled;

        // The whenComplete callback is registered for its effect and throws nothing: its future is not needed.
        @SuppressWarnings("FutureReturnValueIgnored")
        void start(Operation operation, CallContext context) {
            CompletableFuture<Object> started = ReactorRetry.this.loop.call(operation, context, this);
            this.outcome = started;
            started.whenComplete((result, failure) -> {
                // Cancelled with the subscription: nobody is left to signal it to.
                if (failure != null && !this.cancelled) {
                    this.next.completeExceptionally(failure);
                }
            });
        }

        @Override
        public void attempt(AsyncRetry.Attempt<Object> attempt) {
            this.current = attempt;
            this.next.complete(null);
        }

        /** Emits when the loop makes its first attempt, after a cool-down if one is in force. */
        Mono<Long> firstAttempt() {
            return nextAttempt(this.next);
        }

        /** Tells of the success that a value, or a completion without any, stands for, if it is the first. */
        void succeeded(@Nullable Object valueOrNull) {
            if (!this.settled) {
                // Set first: an Error a listener throws must pass through as it is, not count as a failed attempt.
                this.settled = true;
                // The loop's result is not read: the value reaches the subscriber through the source.
                Objects.requireNonNull(this.current).succeeded(NEXT);
            }
        }

        /**
         * Tells of the success that an element stands for, if it is the first, and passes the element
         * on; when a listener throws an {@link Error} instead, the element, which the subscriber will
         * never get, goes to Reactor's discard hook (where {@code doOnDiscard} can release it) before
         * the Error is signalled.
         */
        <T> void succeeded(T element, SynchronousSink<T> sink) {
            try {
                succeeded(element);
            }
            catch (Error ex) {
                Operators.onDiscard(element, Context.of(sink.contextView()));
                throw ex;
            }
            sink.next(element);
        }

        /** Ends the call when the subscription is cancelled: a wait ends, the attempt in flight is abandoned. */
        void cancel() {
            this.cancelled = true;
            CompletableFuture<Object> started = this.outcome;
            if (started != null) {
                started.cancel(true);
            }
        }

        Retry retry() {
            return Retry.from((signals) -> signals.concatMap((signal) -> afterFailure(signal.failure())));
        }

        /** Tells the loop of a failed attempt: emits when it makes the next one, fails when it gives up. */
        private Mono<Long> afterFailure(Throwable thrown) {
            // An established stream's failure: not a failed attempt; it passes through untouched.
            if (this.settled) {
                return Mono.error(thrown);
            }
            CompletableFuture<@Nullable Void> after = new CompletableFuture<>();
            this.next = after;
            Objects.requireNonNull(this.current).failed(thrown);
            return nextAttempt(after);
        }

        // The whenComplete callback signals the sink and throws nothing: its future is not needed.
        @SuppressWarnings("FutureReturnValueIgnored")
        private Mono<Long> nextAttempt(CompletableFuture<@Nullable Void> attempt) {
            return Mono.create((sink) -> attempt.whenComplete((ignored, failure) -> {
                if (failure != null) {
                    sink.error(failure);
                }
                else {
                    sink.success(NEXT);
                }
            }));
        }
    }
}
