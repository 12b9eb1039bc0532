package dev.inference.retry.springai.exchange;

import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

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
 * <p>Traps: a task runs at once only on a thread of the executor it was submitted for, the one that
 * read the first event, and only the first task submitted during the hand-over (a handler that starts
 * another stream does not run that one there too); every other task, such as that of a subscription
 * made after the exchange had completed, goes to the SDK's executor as before, so the SDK never reads a
 * stream on a transport or subscriber thread. Thread-safe.
 */
public final class StreamHandOff {

    /** The executor whose thread this is, while it hands a response over whose first event it read. */
    private static final ThreadLocal<@Nullable Executor> HANDING_OVER = new ThreadLocal<>();

    private StreamHandOff() {
    }

    /**
     * Returns the stream handler executor to give the SDK's client in place of its own.
     *
     * @param executor the SDK's stream handler executor, on which the retried exchanges read first events;
     *     it runs every task not run during a hand-over
     * @return the executor, which never shuts {@code executor} down
     */
    public static Executor streamHandlerExecutor(Executor executor) {
        Objects.requireNonNull(executor, "executor must not be null");
        return new Executor() {

            @Override
            public void execute(Runnable task) {
                if (HANDING_OVER.get() == executor) {
                    HANDING_OVER.set(null);
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
     * Hands a response over on this thread, a thread of the stream reader that read its first event: the
     * first task the SDK submits meanwhile to that executor runs here, at once.
     *
     * @param reader the executor this thread belongs to, which read the first event
     * @param completion completes the exchange's future with the response
     */
    static void handOver(Executor reader, Runnable completion) {
        HANDING_OVER.set(reader);
        try {
            completion.run();
        }
        finally {
            // Not remove(): on every stream, that clears the entry's weak reference through a native call.
            HANDING_OVER.set(null);
        }
    }
}
