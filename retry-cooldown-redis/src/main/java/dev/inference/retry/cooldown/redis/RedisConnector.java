package dev.inference.retry.cooldown.redis;

import dev.inference.client.Durations;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Opens the {@link RedisCooldownStore}'s {@link RedisLink}s on a thread of its own, one attempt at a
 * time, so that the store waits for one at most a given time ({@link RedisLink#connectWait}). An
 * attempt that outlasts it goes on: the next {@link #connect()} waits for the same attempt again
 * instead of opening another connection, so that a Redis that accepts connections but does not
 * answer them never collects more than one, and the store takes the connection as soon as Redis
 * answers. Lettuce's own timeouts (its connect timeout, then the command timeout for the handshake)
 * end an attempt at the latest. A link that arrives once the connector is closed is closed, and the
 * thread ends when no attempt is left.
 */
final class RedisConnector implements AutoCloseable {

    /** How long the connecting thread outlives its last attempt, so that probes in an outage reuse it. */
    private static final Duration IDLE_THREAD = Duration.ofSeconds(10);

    private final Supplier<RedisLink> opening;

    private final Duration wait;

    private final ThreadPoolExecutor executor;

    private final Object lock = new Object();

    /** The attempt under way or not yet taken; guarded by {@link #lock}. */
    private @Nullable CompletableFuture<RedisLink> attempt;

    /** Guarded by {@link #lock}. */
    private boolean closed;

    RedisConnector(Supplier<RedisLink> opening, Duration wait, String threadName) {
        this.opening = opening;
        this.wait = wait;
        this.executor = new ThreadPoolExecutor(1, 1, IDLE_THREAD.toNanos(), TimeUnit.NANOSECONDS,
                new LinkedBlockingQueue<>(), (task) -> {
                    Thread thread = new Thread(task, threadName);
                    thread.setDaemon(true);
                    return thread;
                });
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Returns a new link once it is open, waiting for it at most the connector's wait.
     *
     * @throws RedisException when the attempt failed, when it is still under way after the wait (the
     *     next call waits for it again), or when the connector is closed
     */
    RedisLink connect() {
        CompletableFuture<RedisLink> current;
        synchronized (this.lock) {
            if (this.closed) {
                throw new RedisConnectionException("The cool-down store is closed");
            }
            if (this.attempt == null) {
                this.attempt = CompletableFuture.supplyAsync(this.opening, this.executor);
            }
            current = this.attempt;
        }
        try {
            RedisLink link = current.get(Durations.toWaitNanos(this.wait), TimeUnit.NANOSECONDS);
            taken(current);
            return link;
        }
        catch (TimeoutException ex) {
            throw new RedisConnectionException(
                    "No connection to Redis within " + this.wait.toMillis() + " ms; the attempt goes on");
        }
        catch (ExecutionException ex) {
            taken(current);
            Throwable failure = ex.getCause();
            throw (failure instanceof RuntimeException runtime) ? runtime : new RedisConnectionException(
                    "Connecting to Redis failed", failure);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("Interrupted while connecting to Redis", ex);
        }
    }

    /** Closes the link of an attempt still under way or not taken, once it comes, and ends the thread. */
    @Override
    @SuppressWarnings("FutureReturnValueIgnored")
    public void close() {
        CompletableFuture<RedisLink> pending;
        synchronized (this.lock) {
            this.closed = true;
            pending = this.attempt;
            this.attempt = null;
        }
        if (pending != null) {
            // A failed attempt has nothing to close, and has closed what it had opened.
            pending.thenAccept(RedisLink::close);
        }
        // Never interrupt an attempt: Lettuce would then leave the connection it completes open.
        this.executor.shutdown();
    }

    private void taken(CompletableFuture<RedisLink> finished) {
        synchronized (this.lock) {
            if (this.attempt == finished) {
                this.attempt = null;
            }
        }
    }
}
