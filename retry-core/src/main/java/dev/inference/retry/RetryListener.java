package dev.inference.retry;

import dev.inference.retry.cooldown.CooldownSetEvent;
import dev.inference.retry.cooldown.CooldownStore;
import java.time.Duration;

/**
 * Observes the attempts of a {@link RetryClient}, for metrics, logs or traces.
 *
 * <p>Methods are called on the calling thread, synchronously, in this order for each attempt:
 * {@link #attemptFinished}, then either {@link #retryScheduled} (when the client is about to wait and
 * try again) or {@link #exhausted} (when it gives up on a transient failure), or nothing more (on
 * success, on a permanent failure, or when no wait is made because the context is already done or its
 * deadline would pass during the wait).
 * Before an attempt that a cool-down delays, {@link #attemptDelayed} is called.
 * A {@link RuntimeException} thrown by a listener is contained and logged; it never changes the
 * call. An {@link Error} propagates. Every method has a no-op default, so the interface can grow.
 */
public interface RetryListener {

    /**
     * Called after every attempt, successful or not.
     *
     * @param event the attempt
     */
    default void attemptFinished(AttemptEvent event) {
    }

    /**
     * Called before each wait, after a retryable failure, with the exact delay about to be waited.
     *
     * @param failed the attempt that failed
     * @param delay the wait before the next attempt
     */
    default void retryScheduled(AttemptEvent failed, Duration delay) {
    }

    /**
     * Called once when a call gives up because its last allowed attempt failed with a retryable
     * failure, right before {@code exception} is thrown.
     *
     * @param last the last attempt
     * @param exception the exception the call ends with
     */
    default void exhausted(AttemptEvent last, ExhaustedException exception) {
    }

    /**
     * Called before an attempt waits for a cool-down that a provider asked for (see
     * {@link CooldownStore}), with the wait beyond any backoff. Not called when the cool-down ends
     * within the backoff wait.
     *
     * @param event the attempt that waits, and for how long
     */
    default void attemptDelayed(CooldownEvent event) {
    }

    /**
     * Called when the client has cooled its provider account down in its {@link CooldownStore}: for
     * a failed attempt's {@code Retry-After}, before {@link #attemptFinished} is called for that
     * attempt; for a response's rate-limit headers (see {@link Retrier#rateLimited}), when the
     * response is read.
     *
     * @param event the key, how long and why
     */
    default void cooldownSet(CooldownSetEvent event) {
    }

    /**
     * Called when a stream stayed silent past its {@code stream-idle-timeout} once established and was
     * ended with a {@link dev.inference.failure.StreamStalledException}, on the thread of the timer
     * that found it silent. Must be quick and must not block.
     *
     * @param event the stalled stream's client and timeout
     */
    default void streamStalled(StreamStalledEvent event) {
    }
}
