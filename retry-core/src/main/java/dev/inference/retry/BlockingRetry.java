package dev.inference.retry;

import dev.inference.client.CallContext;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * The blocking retry loop: makes the attempts of a call on the calling thread and waits between them
 * by blocking it, in the order {@link RetryExecution} gives. What an attempt is, and what differs
 * between callers (how a failure is typed, a failure handed back as a result, what the call
 * returns), is the caller's, given as {@link Attempts}.
 *
 * <p>Waits block with the retrier's {@linkplain Retrier.Builder#sleeper sleeper}; an interrupt ends
 * the call with a {@link CancellationException} and restores the thread's interrupt status. An
 * {@link Error}, or a checked exception, thrown by an attempt ends the call as it is: the listeners
 * hear nothing of it, and its observation is ended as {@linkplain RetryExecution#abandoned abandoned}.
 * {@link AsyncRetry} is the same loop for a caller that must not block.
 *
 * <p>Trap: the {@link ShutdownSignal} wakes a wait at once only with {@link Sleeper#system()}; with a
 * sleeper of its own, the call sees the shutdown when the sleeper returns. Immutable and thread-safe;
 * every call's state lives in that call.
 */
public final class BlockingRetry {

    private final Retrier retrier;

    private final Sleeper sleeper;

    private BlockingRetry(Retrier retrier) {
        this.retrier = retrier;
        this.sleeper = retrier.sleeper();
    }

    /**
     * Creates the loop of a retrier, which waits with the retrier's
     * {@linkplain Retrier.Builder#sleeper sleeper}.
     *
     * @param retrier the decisions, listeners, shutdown signal and sleeper
     * @return the loop
     * @throws NullPointerException if {@code retrier} is {@code null}
     */
    public static BlockingRetry of(Retrier retrier) {
        return new BlockingRetry(Objects.requireNonNull(retrier, "retrier must not be null"));
    }

    /**
     * Returns the retrier whose decisions the loop follows.
     *
     * @return the retrier
     */
    public Retrier retrier() {
        return this.retrier;
    }

    /**
     * Makes a call: its attempts, from the first, and the waits between them, as the class
     * documentation describes.
     *
     * @param <T> what an attempt returns
     * @param <X> the checked exception an attempt may throw, or {@link RuntimeException}
     * @param operation the kind of call, for the listeners
     * @param context the call's context, shared by every attempt; its cancellation and deadline end
     *     the call
     * @param attempts makes each attempt, and what differs between callers
     * @return what {@link Attempts#succeeded} makes of the result of the attempt that succeeded, or a
     *     result {@linkplain Attempts#handedBackFailureOf handed back}
     * @throws X what an attempt threw that is not a {@link RuntimeException}, as it is
     * @throws ExhaustedException (through {@link Attempts#thrownFor}) when the last attempt allowed
     *     failed retryably, or the retry budget refused a retry
     * @throws CancellationException when the context was cancelled, before the first attempt or during
     *     a wait, or the thread was interrupted during a wait
     * @throws DeadlineExceededException when the deadline passed, or would have during a wait
     * @throws ShutdownException when the retrier's shutdown signal fired before or during a wait
     * @throws RuntimeException (through {@link Attempts#thrownFor}) a permanent failure, as the
     *     attempt threw it
     * @throws NullPointerException if an argument is {@code null}
     */
    public <T, X extends Throwable> T call(Operation operation, CallContext context, Attempts<T, X> attempts)
            throws X {
        Objects.requireNonNull(operation, "operation must not be null");
        Objects.requireNonNull(context, "context must not be null");
        Objects.requireNonNull(attempts, "attempts must not be null");
        Optional<RuntimeException> done = context.failure();
        if (done.isPresent()) {
            throw done.get();
        }
        RetryExecution execution = this.retrier.start(operation, context);
        for (;;) {
            Duration cooldown = execution.cooldownBeforeAttempt();
            while (!cooldown.isZero()) {
                pause(cooldown, context, execution);
                execution.endCooldownWait();
                cooldown = execution.cooldownBeforeAttempt();
            }
            T result;
            try {
                result = attempts.attempt(execution.attempt());
            }
            catch (RuntimeException ex) {
                RetryExecution.Decision decision = execution.failed(attempts.failureOf(ex));
                if (!decision.isRetry()) {
                    throw attempts.thrownFor(decision.failure());
                }
                pause(decision.delay(), context, execution);
                execution.beginNextAttempt();
                continue;
            }
            catch (Throwable ex) {
                // An Error or a checked exception ends the call as it is; its attempt's observation too.
                execution.abandoned(ex);
                throw ex;
            }
            return ended(execution, attempts, result);
        }
    }

    /**
     * Ends a call with the result of an attempt: hands it back after telling the execution of the
     * failure it stands for, or tells of the success and returns what the caller makes of it.
     */
    private <T, X extends Throwable> T ended(RetryExecution execution, Attempts<T, X> attempts, T result) {
        RuntimeException handedBack = attempts.handedBackFailureOf(result);
        int made;
        try {
            if (handedBack != null) {
                execution.failed(handedBack);
                return result;
            }
            if (this.retrier.readsRateLimits()) {
                attempts.rateLimitedFor(result).ifPresent(this.retrier::rateLimited);
            }
            made = execution.succeeded();
        }
        catch (Error ex) {
            // The caller never gets the result, so nobody else could release it.
            attempts.release(result, ex);
            throw ex;
        }
        return attempts.succeeded(result, made);
    }

    private void pause(Duration delay, CallContext context, RetryExecution execution) {
        try {
            sleep(delay, context);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw execution.interrupted(ex);
        }
    }

    private void sleep(Duration delay, CallContext context) throws InterruptedException {
        Optional<ShutdownSignal> shutdown = this.retrier.shutdownSignal();
        if (shutdown.isPresent() && this.sleeper == Sleeper.system()) {
            shutdown.get().await(delay, context);
        }
        else {
            this.sleeper.sleep(delay, context);
        }
    }

    @Override
    public String toString() {
        return "BlockingRetry[retrier=" + this.retrier + ", sleeper=" + this.sleeper + "]";
    }

    /**
     * The attempts of one call, and what differs between the callers of a {@link BlockingRetry}. Only
     * {@link #attempt} must be given; the other methods default to a caller whose attempts return their
     * result and throw their failure as they are. The loop calls them on the calling thread, one at a
     * time; an implementation may hold the call's state.
     *
     * @param <T> what an attempt returns
     * @param <X> the checked exception an attempt may throw, or {@link RuntimeException}
     */
    @FunctionalInterface
    public interface Attempts<T, X extends Throwable> {

        /**
         * Makes one attempt.
         *
         * @param attempt the 1-based number of the attempt
         * @return the attempt's result, not {@code null}: a success, unless {@link #handedBackFailureOf}
         *     says otherwise
         * @throws RuntimeException the attempt's failure, which the execution classifies
         * @throws X what ends the call at once, unclassified and untold, as does an {@link Error}
         */
        T attempt(int attempt) throws X;

        /**
         * Returns the failure to classify and report in place of what an attempt threw, such as the
         * typed failure that a client library's exception stands for. Called once per failed attempt.
         *
         * @param thrown what the attempt threw
         * @return the failure the execution hears of; by default {@code thrown}
         */
        default RuntimeException failureOf(RuntimeException thrown) {
            return thrown;
        }

        /**
         * Tells whether a result stands for a permanent failure that the caller gets as this result
         * rather than as an exception, such as an HTTP response with an error status that a client
         * library turns into its own exception. The listeners hear of the failure, and the call
         * returns the result whatever the execution decided, so the failure must be permanent.
         *
         * @param result what an attempt returned
         * @return the failure the result stands for, or {@code null} for a success (the default)
         */
        default @Nullable RuntimeException handedBackFailureOf(T result) {
            return null;
        }

        /**
         * Returns what the call throws when the execution gives up, in place of the exception it gave
         * up with: a permanent failure as classified (see {@link #failureOf}), or an
         * {@link ExhaustedException}. Not asked about the exceptions that end a wait.
         *
         * @param failure the exception the execution gave up with
         * @return what the call throws; by default {@code failure}
         */
        default RuntimeException thrownFor(RuntimeException failure) {
            return failure;
        }

        /**
         * Releases a result that will never reach the caller, because a listener threw an
         * {@link Error} while hearing of the attempt that returned it, such as by closing it.
         *
         * @param result the result to release
         * @param thrown the error that ends the call, to which a failure to release may be added as
         *     suppressed
         */
        default void release(T result, Throwable thrown) {
        }

        /**
         * Returns how long a successful result says its provider account's rate limit stays
         * exhausted, such as {@link dev.inference.client.InferenceResponse#rateLimitedFor()}: the
         * loop then {@linkplain Retrier#rateLimited cools the key} for that long. Asked only when the
         * retrier {@linkplain Retrier#readsRateLimits() reads rate limits}.
         *
         * @param result the result of the attempt that succeeded
         * @return the time until the limit resets; by default empty
         */
        default Optional<Duration> rateLimitedFor(T result) {
            return Optional.empty();
        }

        /**
         * Returns what the call returns for the result of the attempt that succeeded, once the
         * listeners heard of the success, such as the result stamped with the number of attempts.
         *
         * @param result the result
         * @param attempts the number of attempts the call made
         * @return what the call returns; by default {@code result}
         */
        default T succeeded(T result, int attempts) {
            return result;
        }
    }
}
