package dev.inference.retry.cooldown.redis;

import dev.inference.client.Durations;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;

/**
 * The probing of the {@link RedisCooldownStore}: its one thread, its {@link RedisLink} while Redis
 * answers, and the probe that notices an outage and connects again. Every exchange with Redis runs
 * here, through {@link #exchange}; a failed one counts an error, drops the link and begins an outage,
 * which is logged once; the next probe to connect hands the new link to the replication, and the
 * outage ends when that has succeeded.
 *
 * <p>Nothing runs before {@link #start()}, and nothing is started twice. The trap: a link opened while
 * the session closes is taken only until {@link #close()} lets go of its link, never after, so that a
 * connection that comes late is closed rather than leaked. Logs under {@link RedisCooldownStore}'s name.
 */
final class RedisSession implements AutoCloseable {

    /** How long {@link #close()} lets queued exchanges finish, then how long it waits for the thread to stop. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    /**
     * How much longer {@link #close()} waits while the first connection is still being made: an
     * application closed moments after it started still writes the cool-downs it set.
     */
    private static final Duration FIRST_CONNECTION_WAIT = Duration.ofSeconds(2);

    private static final Log logger = LogFactory.getLog(RedisCooldownStore.class);

    private final String namespace;

    private final Duration probeInterval;

    private final RedisConnector connector;

    /** What to do first on a new link: subscribe and synchronise; it throws when Redis fails. */
    private final Consumer<RedisLink> connected;

    private final ScheduledThreadPoolExecutor executor;

    private final LongAdder errors = new LongAdder();

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private final AtomicBoolean started = new AtomicBoolean();

    private final AtomicBoolean closing = new AtomicBoolean();

    private final Object linkLock = new Object();

    /** The link while the session has one; guarded by {@link #linkLock}. */
    private @Nullable RedisLink link;

    /** Whether close() has let go of the link for good; guarded by {@link #linkLock}. */
    private boolean released;

    /** Whether an outage has been reported and not yet ended; confined to the session's thread. */
    private boolean inOutage;

    private volatile boolean reachable;

    RedisSession(String namespace, RedisConnector connector, Duration probeInterval, Consumer<RedisLink> connected) {
        this.namespace = namespace;
        this.connector = connector;
        this.probeInterval = probeInterval;
        this.connected = connected;
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, threadName(namespace));
            thread.setDaemon(true);
            return thread;
        });
        this.executor.setRemoveOnCancelPolicy(true);
        this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    static String threadName(String namespace) {
        return "inference-retry-cooldown-" + namespace;
    }

    /** Connects in the background, then probes at the interval; never waits. Idempotent. */
    @SuppressWarnings("FutureReturnValueIgnored")
    void start() {
        if (this.closing.get() || !this.started.compareAndSet(false, true)) {
            return;
        }
        submit(this::connect);
        long interval = Durations.toWaitNanos(this.probeInterval);
        // Ended by shutting the executor down in close(); a failing probe counts and logs its own error.
        this.executor.scheduleWithFixedDelay(this::probe, interval, interval, TimeUnit.NANOSECONDS);
    }

    /** Waits at most {@code wait} for the first connection to have succeeded or failed. */
    void awaitFirstAttempt(Duration wait) {
        try {
            this.firstAttempt.get(Durations.toWaitNanos(wait), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            logger.debug("Redis has not answered within " + wait + ": the cool-downs of namespace '" + this.namespace
                    + "' are synchronised in the background");
        }
        catch (ExecutionException ex) {
            throw new IllegalStateException("The first attempt never fails", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs a task on the session's thread; after close(), does nothing. */
    void submit(Runnable task) {
        try {
            this.executor.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // Closed: the local copy goes on alone.
        }
    }

    /**
     * Runs an exchange with the link, on the session's thread. Without a link (an outage, or not yet
     * connected) it does nothing: the synchronisation of the next connection does what it would have.
     */
    void exchange(Consumer<RedisLink> exchange) {
        RedisLink current = currentLink();
        if (current == null) {
            return;
        }
        try {
            exchange.accept(current);
            this.reachable = true;
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    long errorCount() {
        return this.errors.sum();
    }

    boolean isReachable() {
        return this.reachable;
    }

    /** Waits until every task submitted before this call has run. */
    void awaitQueued(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture.runAsync(() -> {
        }, this.executor).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Lets queued exchanges finish for up to two seconds (two more while the first connection is being
     * made), stops the thread and closes the link, including one still being attempted, once it is
     * made. Idempotent.
     */
    @Override
    public void close() {
        if (!this.closing.compareAndSet(false, true)) {
            return;
        }
        Duration wait = this.firstAttempt.isDone() ? CLOSE_WAIT : CLOSE_WAIT.plus(FIRST_CONNECTION_WAIT);
        this.executor.shutdown();
        try {
            if (!this.executor.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                this.executor.shutdownNow();
                this.executor.awaitTermination(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        catch (InterruptedException ex) {
            this.executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        this.connector.close();
        RedisLink current;
        synchronized (this.linkLock) {
            this.released = true;
            current = this.link;
            this.link = null;
        }
        if (current != null) {
            current.close();
        }
    }

    private @Nullable RedisLink currentLink() {
        synchronized (this.linkLock) {
            return this.link;
        }
    }

    // Everything below runs on the session's thread.

    private void connect() {
        try {
            RedisLink opened = this.connector.connect();
            synchronized (this.linkLock) {
                if (this.released) {
                    opened.close();
                    return;
                }
                this.link = opened;
            }
            this.connected.accept(opened);
            this.reachable = true;
            if (this.inOutage) {
                this.inOutage = false;
                logger.info("Redis is reachable again: the cool-downs of namespace '" + this.namespace
                        + "' are shared again");
            }
            this.firstAttempt.complete(null);
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void probe() {
        if (currentLink() == null) {
            connect();
            return;
        }
        exchange(RedisLink::ping);
    }

    /**
     * Records a failed exchange, unless it is one that close() cut short, which says nothing about
     * Redis, and drops the link: the next probe opens a new one as soon as Redis answers, rather than
     * waiting for the client's reconnection, whose backoff grows to 30 seconds.
     */
    private void failed(RuntimeException ex) {
        RedisLink current;
        synchronized (this.linkLock) {
            current = this.link;
            this.link = null;
        }
        if (current != null) {
            current.close();
        }
        if (!this.closing.get()) {
            recordFailure(ex);
        }
        // After the failure is counted and logged, so that a store built waiting for it shows it.
        this.firstAttempt.complete(null);
    }

    private void recordFailure(RuntimeException ex) {
        this.errors.increment();
        this.reachable = false;
        if (this.inOutage) {
            return;
        }
        this.inOutage = true;
        // Once per outage, so the cause in one line; the stack trace is for those who ask for it.
        logger.warn("Redis is unreachable (" + NestedExceptionUtils.getMostSpecificCause(ex)
                + "): calls go on with this instance's own cool-downs of namespace '" + this.namespace
                + "', which are shared again once Redis answers");
        logger.debug("Redis failure that began the outage", ex);
    }
}
