package dev.inference.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The cancellation state shared by a {@link CallContext} and its views.
 *
 * <p>Waiting threads park and are unparked by {@link #cancel()}; nothing here takes a monitor, so
 * virtual threads waiting on a cancellation are never pinned to their carrier. Callbacks are held
 * only until they run or their registration is closed, so a long-lived context does not collect
 * the callbacks of every call made with it. The first two actions held at once are held without a
 * set, and the two sets are made when first needed: most attempts' contexts are never waited on and
 * hold one action at a time (a transport's abort, then its response's close), and a call's context
 * two (its exchange's abort and its attempt's scope), so they make no set at all, and the threads
 * that register, withdraw and cancel touch one field.
 */
final class Cancellation {

    private static final VarHandle WAITERS;

    private static final VarHandle CALLBACKS;

    private static final VarHandle FIRST;

    private static final VarHandle SECOND;

    private static final VarHandle CANCELLED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WAITERS = lookup.findVarHandle(Cancellation.class, "waiters", Set.class);
            CALLBACKS = lookup.findVarHandle(Cancellation.class, "callbacks", Set.class);
            FIRST = lookup.findVarHandle(Cancellation.class, "first", Callback.class);
            SECOND = lookup.findVarHandle(Cancellation.class, "second", Callback.class);
            CANCELLED = lookup.findVarHandle(Cancellation.class, "cancelled", boolean.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** Set once, by the first {@link #cancel()}. */
    private volatile boolean cancelled;

    /** Made by the first {@link #await}; read by {@link #cancel()} after it sets {@link #cancelled}. */
    private volatile @Nullable Set<Thread> waiters;

    /**
     * An action registered while this field was empty; whoever takes it out (its registration's close,
     * {@link #cancel()}, or its own registration finding the cancellation done) decides what becomes of it.
     */
    private volatile @Nullable Callback first;

    /** As {@link #first}: an action registered while that field was held and this one empty. */
    private volatile @Nullable Callback second;

    /** The actions registered while {@link #first} and {@link #second} were both held; made by the first of them. */
    private volatile @Nullable Set<Callback> callbacks;

    boolean isCancelled() {
        return this.cancelled;
    }

    void cancel() {
        if (CANCELLED.compareAndSet(this, false, true)) {
            // A set made after this read is made by a waiter or an action that sees the flag set: it runs itself.
            Set<Thread> parked = this.waiters;
            if (parked != null) {
                parked.forEach(LockSupport::unpark);
            }
            Callback held = (Callback) FIRST.getAndSet(this, null);
            RuntimeException failure = (held != null) ? held.run(null) : null;
            held = (Callback) SECOND.getAndSet(this, null);
            failure = (held != null) ? held.run(failure) : failure;
            Set<Callback> actions = this.callbacks;
            if (actions != null) {
                for (Callback callback : actions) {
                    failure = callback.fire(failure);
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Returns how many registered actions are held, neither run nor withdrawn yet. */
    int registeredActions() {
        Set<Callback> actions = this.callbacks;
        return ((this.first != null) ? 1 : 0) + ((this.second != null) ? 1 : 0)
                + ((actions != null) ? actions.size() : 0);
    }

    CallContext.Registration onCancel(Runnable action) {
        Callback callback = new Callback(action, this);
        if (!FIRST.compareAndSet(this, null, callback) && !SECOND.compareAndSet(this, null, callback)) {
            this.<Callback>made(CALLBACKS).add(callback);
        }
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
        Set<Thread> parked = made(WAITERS);
        parked.add(self);
        try {
            // Registered before checking, so a cancel() racing with us either is seen here or unparks us.
            Durations.park(nanos, this::isCancelled, this);
        }
        finally {
            parked.remove(self);
        }
    }

    /** The set a handle names, made now if it is not yet: the first of two racing threads to set it wins. */
    @SuppressWarnings("unchecked")
    private <T> Set<T> made(VarHandle handle) {
        Set<T> set = (Set<T>) handle.getVolatile(this);
        if (set != null) {
            return set;
        }
        Set<T> made = ConcurrentHashMap.newKeySet();
        Set<T> won = (Set<T>) handle.compareAndExchange(this, null, made);
        return (won != null) ? won : made;
    }

    /**
     * One registered action, held in {@code first}, in {@code second} or in the set, never moved;
     * whoever takes it out runs it, so it runs at most once.
     */
    private static final class Callback implements CallContext.Registration {

        private final Runnable action;

        private final Cancellation owner;

        Callback(Runnable action, Cancellation owner) {
            this.action = action;
            this.owner = owner;
        }

        /** Runs the action unless it ran or was closed; returns the failures so far, this one's added. */
        @Nullable RuntimeException fire(@Nullable RuntimeException failures) {
            return takeOut() ? run(failures) : failures;
        }

        /** Runs the action, taken out already; returns the failures so far, this one's added. */
        @Nullable RuntimeException run(@Nullable RuntimeException failures) {
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
            takeOut();
        }

        /** Takes it out of where it is held; {@code true} for the one caller that did. */
        private boolean takeOut() {
            // Read before the compare-and-set, which would claim the field's cache line even when it fails.
            if (this.owner.first == this) {
                return FIRST.compareAndSet(this.owner, this, null);
            }
            if (this.owner.second == this) {
                return SECOND.compareAndSet(this.owner, this, null);
            }
            Set<Callback> actions = this.owner.callbacks;
            return actions != null && actions.remove(this);
        }
    }
}
