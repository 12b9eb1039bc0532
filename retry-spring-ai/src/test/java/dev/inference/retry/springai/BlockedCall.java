package dev.inference.retry.springai;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A model's call made on a thread of its own, so that a test can interrupt it while it waits and see how
 * it ended: what it threw, and whether its thread was still interrupted then.
 */
public final class BlockedCall {

    private final Thread thread;

    private final AtomicReference<Throwable> thrown = new AtomicReference<>();

    private final AtomicBoolean stillInterrupted = new AtomicBoolean();

    private BlockedCall(Runnable call) {
        this.thread = new Thread(() -> {
            try {
                call.run();
            }
            catch (RuntimeException ex) {
                this.thrown.set(ex);
                this.stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        }, "blocked-call");
    }

    /** Starts the call. */
    public static BlockedCall start(Runnable call) {
        BlockedCall blocked = new BlockedCall(call);
        blocked.thread.start();
        return blocked;
    }

    /**
     * Interrupts the call and waits for its thread to end, for at most {@code timeout}.
     *
     * @return how long it took from the interrupt to the end, or {@code timeout} and more if it did not end
     */
    public Duration interruptAndJoin(Duration timeout) throws InterruptedException {
        long interrupted = System.nanoTime();
        this.thread.interrupt();
        this.thread.join(timeout.toMillis());
        return Duration.ofNanos(System.nanoTime() - interrupted);
    }

    public boolean isAlive() {
        return this.thread.isAlive();
    }

    public @Nullable Throwable thrown() {
        return this.thrown.get();
    }

    public boolean wasStillInterrupted() {
        return this.stillInterrupted.get();
    }
}
