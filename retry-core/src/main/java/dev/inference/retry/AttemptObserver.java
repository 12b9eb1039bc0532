package dev.inference.retry;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Surrounds each attempt of a call with an observation of its own, such as a trace span: unlike a
 * {@link RetryListener}, which hears of an attempt once it is over, an observer is told when the
 * attempt starts, and again when the call has decided what follows it.
 *
 * <p>Called on the thread that drives the call: {@link #attemptStarted} right before the attempt is
 * made (after any wait for a cool-down), and {@link ObservedAttempt#attemptEnded} once, after the
 * listeners heard of the attempt's outcome and the call decided whether to retry. A
 * {@link RuntimeException} thrown by an observer is not contained: an observer must not throw.
 * Set one with {@link Retrier.Builder#observer}; a retrier without one pays nothing for it.
 */
@FunctionalInterface
public interface AttemptObserver {

    /**
     * Starts observing an attempt that is about to be made.
     *
     * @param client the name of the retrying client
     * @param operation the kind of call
     * @param attempt the 1-based number of the attempt
     * @return the observation, ended once with the attempt's outcome
     */
    ObservedAttempt attemptStarted(String client, Operation operation, int attempt);

    /**
     * The observation of one attempt.
     */
    @FunctionalInterface
    interface ObservedAttempt {

        /**
         * Ends the observation.
         *
         * @param outcome the attempt, as the listeners heard of it
         * @param retryDelay the backoff before the next attempt when the call retries, or
         *     {@code null} when it ends with this attempt
         */
        void attemptEnded(AttemptEvent outcome, @Nullable Duration retryDelay);
    }
}
