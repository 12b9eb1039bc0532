package dev.inference.client;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The cancellation state shared by a {@link CallContext} and its views.
 *
 * <p>Waiting threads park and are unparked by {@link #cancel()}; nothing here takes a monitor, so
 * virtual threads waiting on a cancellation are never pinned to their carrier. Callbacks are held
 * only until they run or their registration is closed, so a long-lived context does not collect
 * the callbacks of every call made with it.
 */
final class Cancellation {

    private final AtomicBoolean cancelled = new AtomicBoolean();

    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();

    private final Set<Callback> callbacks = ConcurrentHashMap.newKeySet();

    boolean isCancelled() {
        return this.cancelled.get();
    }

    void cancel() {
        if (this.cancelled.compareAndSet(false, true)) {
            this.waiters.forEach(LockSupport::unpark);
            RuntimeException failure = null;
            for (Callback callback : this.callbacks) {
                failure = callback.fire(failure);
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Returns how many registered actions are held, neither run nor withdrawn yet. */
    int registeredActions() {
        return this.callbacks.size();
    }

    CallContext.Registration onCancel(Runnable action) {
        Callback callback = new Callback(action);
        this.callbacks.add(callback);
        // Added before checking: a cancel() racing with us either fires the callback or is seen here.
        if (isCancelled()) {
            RuntimeException failure = callback.fire(null);
            if (failure != null) {
                throw failure;
            }
        }
        return callback;
    }

    /** Parks until cancelled or {@code nanos} have elapsed; throws if interrupted. */
    void await(long nanos) throws InterruptedException {
        Thread self = Thread.currentThread();
        this.waiters.add(self);
        try {
            // Registered before checking, so a cancel() racing with us either is seen here or unparks us.
            Durations.park(nanos, this::isCancelled, this);
        }
        finally {
            this.waiters.remove(self);
        }
    }

    /** One registered action; whoever removes it from the set runs it, so it runs at most once. */
    private final class Callback implements CallContext.Registration {

        private final Runnable action;

        Callback(Runnable action) {
            this.action = action;
        }

        /** Runs the action unless it ran or was closed; returns the failures so far, this one's added. */
        @Nullable RuntimeException fire(@Nullable RuntimeException failures) {
            if (!Cancellation.this.callbacks.remove(this)) {
                return failures;
            }
            try {
                this.action.run();
                return failures;
            }
            catch (RuntimeException ex) {
                if (failures == null) {
                    return ex;
                }
                failures.addSuppressed(ex);
                return failures;
            }
        }

        @Override
        public void close() {
            Cancellation.this.callbacks.remove(this);
        }
    }
}
