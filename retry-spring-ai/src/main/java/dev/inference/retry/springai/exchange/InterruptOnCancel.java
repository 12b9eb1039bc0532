package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;

/**
 * Abandons a blocking exchange of Spring's {@code RestClient} when its attempt's context is cancelled
 * (its timeout passed, on the timer's thread), by interrupting the thread that makes it: the one way to
 * abort a {@code ClientHttpRequest}, whose blocking transports (Reactor Netty, the JDK's
 * {@code HttpClient}, Jetty) answer an interrupt by cancelling their exchange and closing its connection.
 *
 * <p>Made and closed by the thread that makes the exchange. Closing it withdraws the interrupt, and
 * clears the thread's interrupt status if the interrupt was this one's, so that nothing of it reaches
 * the caller. An interrupt that was already pending when the attempt ended is the caller's, and stays.
 * Trap: a transport that does not answer interrupts (the JDK's {@code HttpURLConnection}) finishes its
 * exchange all the same; the attempt then fails with its timeout once the exchange returns.
 */
final class InterruptOnCancel implements AutoCloseable {

    private final Thread thread = Thread.currentThread();

    private final CallContext.Registration registration;

    /** Guarded by this: whether the attempt is over, and whether this interrupted the thread. */
    private boolean over;

    private boolean interrupted;

    private InterruptOnCancel(CallContext attempt) {
        this.registration = attempt.onCancel(this::interrupt);
    }

    /**
     * Interrupts the calling thread when the attempt's context is cancelled, until closed.
     *
     * @param attempt the attempt's context
     * @return the guard, to close on the same thread once the exchange has returned
     */
    static InterruptOnCancel of(CallContext attempt) {
        return new InterruptOnCancel(attempt);
    }

    private synchronized void interrupt() {
        if (!this.over && !this.thread.isInterrupted()) {
            this.interrupted = true;
            this.thread.interrupt();
        }
    }

    /** Withdraws the interrupt, and clears it if it was made. Never throws. */
    @Override
    public void close() {
        // Outside the lock: the timer's thread may hold the context's while it waits for this one.
        this.registration.close();
        synchronized (this) {
            this.over = true;
            if (this.interrupted) {
                Thread.interrupted();
            }
        }
    }
}
