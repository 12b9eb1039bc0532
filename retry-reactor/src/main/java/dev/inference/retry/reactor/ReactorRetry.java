package dev.inference.retry.reactor;

import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryExecution;
import dev.inference.retry.ShutdownSignal;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.SynchronousSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.retry.Retry;

/**
 * Retries a {@link Mono}, or the establishment of a {@link Flux}, with the decisions and listener
 * events of a {@link Retrier}: those a blocking {@link RetryClient} of the same retrier would make
 * for the same failures.
 *
 * <pre>{@code
 * ReactorRetry retry = ReactorRetry.of(Retrier.builder(policy).name("openai").build());
 * CallContext call = CallContext.withTimeout(Duration.ofSeconds(30));
 * Mono<String> answer = retry.mono(Mono.defer(() -> provider.complete(prompt)), call);
 * Flux<String> chunks = provider.streamCompletion(prompt).transform(retry::flux);
 * }</pre>
 *
 * <p>Each subscription to a returned publisher is one call. It {@linkplain Retrier#start starts}
 * its own {@link RetryExecution} and subscribes to the source once per attempt, so the source must
 * be cold: each subscription makes a new request. For every attempt after the first:
 * <ol>
 * <li>the execution is told of the failure and decides, in the order its documentation gives, to
 * give up (the call then signals that decision's exception: a permanent failure unchanged, an
 * {@link ExhaustedException} whose cause is the last failure, the context's failure, or a
 * {@link DeadlineExceededException} when the deadline would pass during the wait) or to retry after
 * a delay that honours the provider's {@code Retry-After}, capped at five minutes;</li>
 * <li>the delay is waited on the {@link Scheduler}'s timer, with no thread blocked (the retrier's
 * sleeper, which only blocking callers use, plays no part);</li>
 * <li>the source is subscribed to again.</li>
 * </ol>
 * A call whose context is already done when it is subscribed to signals the context's failure
 * without subscribing to the source, and without a listener event.
 *
 * <p>Before every attempt, the first included, a cool-down of the retrier's provider account (see
 * {@link dev.inference.retry.CooldownStore}) is waited out the same way.
 *
 * <p>Ending a call early: cancelling the subscription during a wait ends the wait, and the source is
 * not subscribed to again. A firing {@link ShutdownSignal} of the retrier ends every wait at once
 * with a {@link dev.inference.failure.ShutdownException}. {@linkplain CallContext#cancel() Cancelling the context} during a wait
 * ends the call at once with a {@link CancellationException}, the failure that caused the wait
 * attached as suppressed. The context reaches an attempt in progress only through the source, as it
 * reaches the inner client of a {@link RetryClient}: a source that ignores it runs to its end, and
 * its failure, if any, is then not retried.
 *
 * <p>What counts as an attempt's outcome:
 * <ul>
 * <li>{@link #mono}: a value or an empty completion is a success ({@link Operation#INVOKE});</li>
 * <li>{@link #flux}: only establishment is retried ({@link Operation#STREAM}). The first element, or a
 * completion without any, is a success; from then on every signal passes through untouched, so an
 * error after the first element is never retried and no element is ever emitted twice;</li>
 * <li>a failure that is not a {@link RuntimeException} (an {@link Error}, or a checked exception a
 * publisher signals) ends the call as it is, with no listener event, as it would escape the
 * blocking loop; the attempt's observation, if any, is ended as
 * {@linkplain RetryExecution#abandoned abandoned}.</li>
 * </ul>
 * When a listener throws an {@link Error} on hearing of the success, the element that stood for it is
 * not emitted: it goes to Reactor's discard hook ({@code doOnDiscard}), so that it can be released,
 * and the Error is signalled.
 *
 * <p>Thread-safety: instances are immutable and thread-safe. A call's {@link RetryExecution} is not,
 * and is never used by two threads at once: the source's signals are serialized (Reactive Streams
 * rule 1.3), the execution hears of a failure from the thread that signals it before the wait is
 * scheduled, and the wait's two possible ends, the timer and the context's cancellation, race
 * through {@link Mono#firstWithSignal}, so that only the one that wins begins the next attempt,
 * before it subscribes to the source again. Cancelling the subscription tells the execution only
 * that the call was {@linkplain RetryExecution#abandoned abandoned}, which is safe from any thread:
 * the observation of an attempt in flight, if any, is ended; no listener hears of it.
 */
public final class ReactorRetry {

    /** What the context's cancellation emits to end a wait, in place of the timer's tick. */
    private static final Long CANCELLED = -1L;

    private final Retrier retrier;

    /** The scheduler of the waits, or {@code null} for {@link Schedulers#parallel()} at each wait. */
    private final @Nullable Scheduler scheduler;

    private ReactorRetry(Retrier retrier, @Nullable Scheduler scheduler) {
        this.retrier = retrier;
        this.scheduler = scheduler;
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
            Optional<RuntimeException> done = context.failure();
            if (done.isPresent()) {
                return Mono.error(done.get());
            }
            Call call = new Call(this.retrier, this.retrier.start(Operation.INVOKE, context), context, scheduler());
            // The value's success is told in handle(), which can discard it; an empty completion's here.
            Mono<T> attempt = source.<T>handle(call::succeeded).doOnSuccess((valueOrNull) -> call.succeeded());
            return call.cooldown().then(attempt.retryWhen(call.retry())).doOnCancel(call::subscriptionCancelled);
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
            Optional<RuntimeException> done = context.failure();
            if (done.isPresent()) {
                return Flux.error(done.get());
            }
            Call call = new Call(this.retrier, this.retrier.start(Operation.STREAM, context), context, scheduler());
            Flux<T> attempt = source.<T>handle(call::succeeded).doOnComplete(call::succeeded);
            return call.cooldown().thenMany(attempt.retryWhen(call.retry())).doOnCancel(call::subscriptionCancelled);
        });
    }

    private Scheduler scheduler() {
        return (this.scheduler != null) ? this.scheduler : Schedulers.parallel();
    }

    @Override
    public String toString() {
        return "ReactorRetry[retrier=" + this.retrier + ", scheduler="
                + ((this.scheduler != null) ? this.scheduler : "parallel") + "]";
    }

    /**
     * One subscription, which is one call: its execution, and whether the execution has been told
     * of the success that ends the retries. Confined as the class documentation explains.
     */
    private static final class Call {

        private final Retrier retrier;

        private final RetryExecution execution;

        private final CallContext context;

        private final Scheduler scheduler;

        /** Whether an attempt succeeded: from then on, every signal passes through untouched. */
        private boolean settled;

        Call(Retrier retrier, RetryExecution execution, CallContext context, Scheduler scheduler) {
            this.retrier = retrier;
            this.execution = execution;
            this.context = context;
            this.scheduler = scheduler;
        }

        void succeeded() {
            if (!this.settled) {
                // Set first: an Error a listener throws must pass through as it is, not count as a failed attempt.
                this.settled = true;
                this.execution.succeeded();
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
                succeeded();
            }
            catch (Error ex) {
                Operators.onDiscard(element, Context.of(sink.contextView()));
                throw ex;
            }
            sink.next(element);
        }

        /**
         * Ends the observation of the attempt in flight, if any, when the subscription is cancelled:
         * that attempt will never tell its outcome.
         */
        void subscriptionCancelled() {
            this.execution.abandoned(new CancellationException("The subscription was cancelled"));
        }

        Retry retry() {
            return Retry.from((signals) -> signals.concatMap((signal) -> afterFailure(signal.failure())));
        }

        /** Decides after a failed attempt: an error that ends the call, or the wait before the next attempt. */
        private Mono<Long> afterFailure(Throwable thrown) {
            // An established stream's failure, an Error, a checked exception: not a failed attempt to retry.
            if (this.settled || !(thrown instanceof RuntimeException failure)) {
                // The observation of an attempt that ended so, if any, is ended too.
                this.execution.abandoned(thrown);
                return Mono.error(thrown);
            }
            RetryExecution.Decision decision = this.execution.failed(failure);
            if (!decision.isRetry()) {
                return Mono.error(decision.failure());
            }
            // Whichever ends the wait first begins the next attempt, which fails if the context is done
            // or the application is shutting down; a cool-down in force then delays it further.
            return endOfWait(decision.delay()).flatMap((tick) -> {
                this.execution.beginNextAttempt();
                return cooldown().thenReturn(tick);
            });
        }

        /**
         * Waits out the cool-down in force before an attempt, if any, as long as it lasts; fails as
         * the execution says when the deadline would pass during it, or the call is given up during it.
         */
        Mono<Void> cooldown() {
            return Mono.defer(() -> {
                Duration cooldown = this.execution.cooldownBeforeAttempt();
                if (cooldown.isZero()) {
                    return Mono.empty();
                }
                return endOfWait(cooldown).then(Mono.fromRunnable(this.execution::endCooldownWait)).then(cooldown());
            });
        }

        /** Emits when the delay has passed, the context is cancelled or the application shuts down. */
        private Mono<Long> endOfWait(Duration delay) {
            Mono<Long> timer = Mono.delay(Duration.ofNanos(Durations.toWaitNanos(delay)), this.scheduler);
            Optional<ShutdownSignal> shutdown = this.retrier.shutdownSignal();
            return shutdown.isPresent() ? Mono.firstWithSignal(timer, cancelled(), shutDown(shutdown.get()))
                    : Mono.firstWithSignal(timer, cancelled());
        }

        /** Emits once the application shuts down; withdraws its registration when the wait ends either way. */
        private static Mono<Long> shutDown(ShutdownSignal signal) {
            return Mono.create((sink) -> {
                CallContext.Registration registration = signal.onShutDown(() -> sink.success(CANCELLED));
                sink.onDispose(registration::close);
            });
        }

        /** Emits once the context is cancelled; withdraws its registration when the wait ends either way. */
        private Mono<Long> cancelled() {
            return Mono.create((sink) -> {
                CallContext.Registration registration = this.context.onCancel(() -> sink.success(CANCELLED));
                sink.onDispose(registration::close);
            });
        }
    }
}
