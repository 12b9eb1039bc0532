package dev.inference.retry.time;

import dev.inference.client.CallContext;
import dev.inference.client.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * Tells retrying calls that the application is shutting down: every wait before a retry ends at
 * once, and no retry starts afterwards. Attempts already in flight are left to finish.
 *
 * <p>One signal is shared by the clients of an application ({@link dev.inference.retry.Retrier.Builder#shutdownSignal}).
 * The Spring Boot auto-configuration fires it when the application context begins to close; a plain
 * Java application fires it from a shutdown hook, or closes it:
 * <pre>{@code
 * ShutdownSignal shutdown = ShutdownSignal.create();
 * Runtime.getRuntime().addShutdownHook(new Thread(shutdown::shutDown));
 * InferenceClient client = RetryClient.of(http, Retrier.builder(policy).shutdownSignal(shutdown).build());
 * }</pre>
 * A call ended this way fails with a {@link dev.inference.failure.ShutdownException}. Thread-safe;
 * firing is final and idempotent.
 */
public final class ShutdownSignal implements AutoCloseable {

    /** The signal's state and registered actions: a context of its own, cancelled when it fires. */
    private final CallContext fired = CallContext.cancellable();

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
        this.fired.cancel();
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
        return this.fired.isDone();
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
        return this.fired.onCancel(action);
    }

    /**
     * Blocks the calling thread until {@code delay} has elapsed, {@code context} is done or the
     * signal fires, whichever comes first: the wait before a retry of a blocking caller. Holds no
     * lock and does not pin a virtual thread.
     *
     * @param delay how long to wait; zero or negative does not wait
     * @param context the call's context, whose cancellation or deadline also ends the wait
     * @throws InterruptedException if the waiting thread is interrupted (its interrupt status is then
     *     cleared, as by {@link Thread#sleep(long)})
     * @throws NullPointerException if an argument is {@code null}
     */
    public void await(Duration delay, CallContext context) throws InterruptedException {
        long nanos = Durations.toWaitNanos(Objects.requireNonNull(delay, "delay must not be null"));
        Objects.requireNonNull(context, "context must not be null");
        Thread self = Thread.currentThread();
        // Registered before checking, so a shutDown() or cancel() racing with us is seen or unparks us.
        CallContext.Registration onShutDown = onShutDown(() -> LockSupport.unpark(self));
        CallContext.Registration onCancel = context.onCancel(() -> LockSupport.unpark(self));
        try {
            Durations.park(nanos, () -> isShutDown() || context.isDone(), this);
        }
        finally {
            onCancel.close();
            onShutDown.close();
        }
    }

    @Override
    public String toString() {
        return "ShutdownSignal[" + (isShutDown() ? "shut down" : "running") + "]";
    }
}
