package dev.inference.retry.time;

import dev.inference.client.CallContext;
import java.time.Duration;

/**
 * Waits out a backoff delay: the seam through which a caller that blocks its thread
 * ({@link dev.inference.retry.RetryClient}, {@link dev.inference.retry.BlockingRetry}) passes time.
 * Set on the {@link dev.inference.retry.Retrier} with {@link dev.inference.retry.Retrier.Builder#sleeper};
 * a caller that schedules its waits on a timer does not use it.
 *
 * <p>The {@linkplain #system() system sleeper} really waits; tests supply one that advances a
 * virtual clock or cancels the context instead, so that retry schedules run without sleeping.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Returns once {@code delay} has elapsed or {@code context} is done, whichever comes first.
     * The caller checks the context afterwards, so returning early without saying why is fine.
     *
     * @param delay the wait, positive
     * @param context the call's context, whose cancellation must end the wait at once
     * @throws InterruptedException if the waiting thread was interrupted
     */
    void sleep(Duration delay, CallContext context) throws InterruptedException;

    /**
     * Returns the sleeper that waits in real time, parking the thread (without holding a lock or
     * pinning a virtual thread) until the delay elapses or the context is cancelled or reaches its
     * deadline. A retrier with a {@link ShutdownSignal} that waits with this sleeper also wakes at
     * once when the signal fires; one with a sleeper of its own sees the signal when that sleeper
     * returns.
     *
     * @return the system sleeper, which delegates to {@link CallContext#await(Duration)}
     */
    static Sleeper system() {
        return SystemSleeper.INSTANCE;
    }
}
