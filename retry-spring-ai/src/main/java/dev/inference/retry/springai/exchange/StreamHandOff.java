package dev.inference.retry.springai.exchange;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Saves a retried stream the second thread hop that reading its first event would otherwise add: the
 * SDK reads the rest of the stream on the thread that read its first event.
 *
 * <p>Without retries, the SDK hands a stream's response from the transport's thread to its stream
 * handler executor, whose thread reads the stream: one hop. {@link RetryingExchanges#executeAsync} must
 * read the first event before it hands the response over, and never on the transport's thread, so it
 * reads it on that same executor; the SDK would then hop again, to a second thread of the executor, to
 * read what the first had begun. Given the {@linkplain #streamHandlerExecutor executor made here} as its
 * stream handler executor, the SDK runs that task at once on the thread that read the first event, as
 * the exchange {@linkplain #handOver hands the response over} there.
 *
 * <p>Traps: only the first task submitted during a hand-over runs at once, on the handing thread (a
 * handler that starts another stream does not run that one there too); every other task, such as that
 * of a subscription made after the exchange had completed, goes to the SDK's executor as before, so the
 * SDK never reads a stream on a transport or subscriber thread. Thread-safe.
 */
public final class StreamHandOff {

    /** Whether this thread is handing a response over and the SDK's first task may run on it. */
    private static final ThreadLocal<Boolean> HANDING_OVER = new ThreadLocal<>();

    private StreamHandOff() {
    }

    /**
     * Returns the stream handler executor to give the SDK's client in place of its own.
     *
     * @param executor the SDK's stream handler executor, which runs every task not run during a
     *     hand-over; the retried exchanges read first events on it
     * @return the executor, which never shuts {@code executor} down
     */
    public static Executor streamHandlerExecutor(Executor executor) {
        Objects.requireNonNull(executor, "executor must not be null");
        return new Executor() {

            @Override
            public void execute(Runnable task) {
                if (Boolean.TRUE.equals(HANDING_OVER.get())) {
                    HANDING_OVER.set(Boolean.FALSE);
                    task.run();
                    return;
                }
                executor.execute(task);
            }

            @Override
            public String toString() {
                return "StreamHandOff[" + executor + "]";
            }
        };
    }

    /**
     * Hands a response over on this thread, the thread of the stream handler executor that read its
     * first event: the first task the SDK submits meanwhile runs here, at once.
     *
     * @param completion completes the exchange's future with the response
     */
    static void handOver(Runnable completion) {
        HANDING_OVER.set(Boolean.TRUE);
        try {
            completion.run();
        }
        finally {
            HANDING_OVER.remove();
        }
    }
}
