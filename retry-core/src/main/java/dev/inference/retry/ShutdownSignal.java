package dev.inference.retry;

import dev.inference.client.CallContext;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Tells retrying calls that the application is shutting down: every wait before a retry ends at
 * once, and no retry starts afterwards. Attempts already in flight are left to finish.
 *
 * <p>One signal is shared by the clients of an application ({@link RetryClient.Builder#shutdownSignal}
 * and {@link Retrier.Builder#shutdownSignal}). The Spring Boot auto-configuration fires it when the
 * application context begins to close; a plain Java application fires it from a shutdown hook, or
 * closes it:
 * <pre>{@code
 * ShutdownSignal shutdown = ShutdownSignal.create();
 * Runtime.getRuntime().addShutdownHook(new Thread(shutdown::shutDown));
 * InferenceClient client = RetryClient.builder(http, policy).shutdownSignal(shutdown).build();
 * }</pre>
 * A call ended this way fails with a {@link dev.inference.failure.ShutdownException}. Thread-safe;
 * firing is final and idempotent.
 */
public final class ShutdownSignal implements AutoCloseable {

    private final AtomicBoolean shutDown = new AtomicBoolean();

    /** The threads parked in a wait, unparked when the signal fires. */
    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();

    /** Actions of non-blocking waits, run once when the signal fires. */
    private final Set<Action> actions = ConcurrentHashMap.newKeySet();

    private ShutdownSignal() {
    }

    /**
     * Creates a signal that has not fired.
     *
     * @return a new signal
     */
    public static ShutdownSignal create() {
        return new ShutdownSignal();
    }

    /**
     * Fires the signal: wakes every call waiting before a retry, runs the registered actions, and
     * makes every later retry decision give up. Idempotent.
     *
     * @throws RuntimeException the first exception a registered action threw, with the others
     *     suppressed, after every action has run
     */
    public void shutDown() {
        if (!this.shutDown.compareAndSet(false, true)) {
            return;
        }
        this.waiters.forEach(LockSupport::unpark);
        RuntimeException failure = null;
        for (Action action : this.actions) {
            failure = action.fire(failure);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Fires the signal; the same as {@link #shutDown()}.
     */
    @Override
    public void close() {
        shutDown();
    }

    /**
     * Tells whether the signal has fired.
     *
     * @return {@code true} once {@link #shutDown()} was called
     */
    public boolean isShutDown() {
        return this.shutDown.get();
    }

    /**
     * Registers an action to run when the signal fires, such as ending a wait scheduled on a timer.
     * The action runs at most once: on the thread that fires the signal, or at once on this thread
     * if it has fired already. Close the registration when the wait is over.
     *
     * @param action what to do; should be quick and must not block
     * @return the registration, whose {@code close()} withdraws the action if it has not run
     * @throws NullPointerException if {@code action} is {@code null}
     * @throws RuntimeException what the action threw, when it ran at once
     */
    public CallContext.Registration onShutDown(Runnable action) {
        Action registered = new Action(Objects.requireNonNull(action, "action must not be null"));
        this.actions.add(registered);
        // Added before checking: a shutDown() racing with us either runs the action or is seen here.
        if (isShutDown()) {
            RuntimeException failure = registered.fire(null);
            if (failure != null) {
                throw failure;
            }
        }
        return registered;
    }

    /**
     * Parks the calling thread until {@code nanos} have elapsed, the context is done or the signal
     * fires, whichever comes first.
     */
    void await(long nanos, CallContext context) throws InterruptedException {
        Thread self = Thread.currentThread();
        long start = System.nanoTime();
        this.waiters.add(self);
        CallContext.Registration cancelled = context.onCancel(() -> LockSupport.unpark(self));
        try {
            // Registered before checking, so a shutDown() or cancel() racing with us is seen or unparks us.
            while (!isShutDown() && !context.isDone()) {
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
            cancelled.close();
            this.waiters.remove(self);
        }
    }

    @Override
    public String toString() {
        return "ShutdownSignal[" + (isShutDown() ? "shut down" : "running") + "]";
    }

    /** One registered action; whoever removes it from the set runs it, so it runs at most once. */
    private final class Action implements CallContext.Registration {

        private final Runnable action;

        Action(Runnable action) {
            this.action = action;
        }

        @Nullable RuntimeException fire(@Nullable RuntimeException failures) {
            if (!ShutdownSignal.this.actions.remove(this)) {
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
            ShutdownSignal.this.actions.remove(this);
        }
    }
}
