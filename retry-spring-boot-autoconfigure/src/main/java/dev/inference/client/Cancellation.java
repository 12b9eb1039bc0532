package dev.inference.client;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The cancellation state shared by a {@link CallContext} and its views.
 *
 * <p>Waiting threads park and are unparked by {@link #cancel()}; nothing here takes a monitor, so
 * virtual threads waiting on a cancellation are never pinned to their carrier.
 */
final class Cancellation {

    private final CompletableFuture<Void> cancelled = new CompletableFuture<>();

    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();

    boolean isCancelled() {
        return this.cancelled.isDone();
    }

    void cancel() {
        if (this.cancelled.complete(null)) {
            this.waiters.forEach(LockSupport::unpark);
        }
    }

    CompletionStage<Void> stage() {
        return this.cancelled.minimalCompletionStage();
    }

    /** Parks until cancelled or {@code nanos} have elapsed; throws if interrupted. */
    void await(long nanos) throws InterruptedException {
        Thread self = Thread.currentThread();
        long start = System.nanoTime();
        this.waiters.add(self);
        try {
            // Registered before checking, so a cancel() racing with us either is seen here or unparks us.
            while (!isCancelled()) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = nanos - (System.nanoTime() - start);
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(this, left);
            }
        }
        finally {
            this.waiters.remove(self);
        }
    }
}
