package dev.inference.retry.time;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * Times the waits of an {@link dev.inference.retry.AsyncRetry}, backoff and cool-down alike: the seam through which a
 * caller that must not block passes time, as a {@link Sleeper} is for one that blocks. An adapter of
 * the caller's own timer (a Reactor {@code Scheduler}, a {@code ScheduledExecutorService}); tests give
 * one that runs in virtual time.
 *
 * <p>Trap: a scheduler that stops with waits pending must tell each through {@link Wait#abandoned()},
 * or their calls never end.
 */
@FunctionalInterface
public interface WaitScheduler {

    /**
     * Schedules the end of a wait.
     *
     * @param delay how long to wait; zero or negative ends the wait as soon as possible
     * @param wait what to tell, once: {@link Wait#elapsed()} when the delay has passed, on a thread of the
     *     scheduler's (or at once on this one), or {@link Wait#abandoned()} when the scheduler stops first
     * @return the scheduled wait, which its owner withdraws when the wait ends otherwise
     * @throws RejectedExecutionException if the scheduler no longer takes waits: the call ends as if the
     *     wait had been abandoned
     */
    Scheduled schedule(Duration delay, Wait wait);

    /** The side of a wait that the scheduler ends. */
    interface Wait {

        /** The delay has passed. Must not block. */
        void elapsed();

        /** The scheduler stopped before the delay passed; the call ends with a {@link dev.inference.failure.ShutdownException}. */
        void abandoned();
    }

    /** A scheduled wait, seen by its owner. */
    @FunctionalInterface
    interface Scheduled {

        /** Withdraws the wait, if it has not ended yet. Idempotent; may race with its end, which then wins. */
        void cancel();
    }
}
