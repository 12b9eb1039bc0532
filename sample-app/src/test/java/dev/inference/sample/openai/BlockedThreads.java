package dev.inference.sample.openai;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/** Waits for a thread to block where a test needs it, by polling with a deadline. */
final class BlockedThreads {

    private BlockedThreads() {
    }

    /**
     * Waits, polling, until the thread is parked with a method of this name on its stack.
     *
     * @param thread the thread
     * @param method the method's simple name
     * @param withinSeconds how long to wait before failing
     */
    static void awaitBlockedIn(Thread thread, String method, long withinSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(withinSeconds);
        while (System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            boolean inMethod = Arrays.stream(thread.getStackTrace())
                    .anyMatch((frame) -> frame.getMethodName().equals(method));
            if ((state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) && inMethod) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("The call never blocked in " + method + ": "
                + Arrays.toString(thread.getStackTrace()));
    }
}
