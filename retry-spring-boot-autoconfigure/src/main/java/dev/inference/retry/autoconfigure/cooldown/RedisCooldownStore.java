package dev.inference.retry.autoconfigure.cooldown;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.inference.client.Durations;
import dev.inference.retry.Backoff;
import dev.inference.retry.CooldownReason;
import dev.inference.retry.CooldownStore;
import dev.inference.retry.LocalCooldownStore;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link CooldownStore} shared by every instance of an application through its Redis, on the
 * application's own Lettuce {@link RedisConnectionFactory}. {@link #remaining} answers from a local
 * copy, with no Redis round trip; {@link #coolDown} updates the copy, then writes the cool-down to a
 * Redis key that expires when it ends and publishes it to the other instances, off the caller's
 * thread. Each instance counts a cool-down on its own clock, so hosts' clocks need not agree, and a
 * later cool-down never shortens an earlier one. It fails open: with Redis down, calls go on with the
 * local copy and never wait for Redis, one warning is logged per outage, {@link #errorCount()} counts
 * the failures, and what was set meanwhile is written and published once Redis answers.
 *
 * <p>Every command sent to Redis waits at most the store's own deadline, twice the
 * {@link Builder#probeInterval(Duration) probe interval} (between one and five seconds), never the
 * factory's command timeout (Lettuce's default is a minute); connecting waits at most the factory's
 * connect timeout. The trap: the store holds two connections of its own, not the factory's shared one,
 * and drops them when an outage begins; the next probe to find Redis answering opens new ones, since
 * the client's reconnection backs off to 30 seconds. How it works, and how fast it notices and
 * recovers: {@code docs/cooldown.md}. Thread-safe.
 */
public final class RedisCooldownStore implements CooldownStore, AutoCloseable, DisposableBean {

    /** Probe interval unless the builder is given another. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);

    /** Longest wait of {@link Builder#build()} for the first synchronisation unless given another. */
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(2);

    /** How long {@link #close()} lets queued writes finish, then how long it waits for the thread to stop. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    /**
     * Shortest deadline of an exchange: Redis answers in well under a millisecond, but a busy host's
     * pause must not pass for an outage.
     */
    private static final Duration SHORTEST_DEADLINE = Duration.ofSeconds(1);

    /** Longest deadline of an exchange, however seldom the store probes: an outage is noticed in seconds. */
    private static final Duration LONGEST_DEADLINE = Duration.ofSeconds(5);

    private static final Log logger = LogFactory.getLog(RedisCooldownStore.class);

    private final String namespace;

    private final String keyPrefix;

    private final byte[] keyPattern;

    private final byte[] channel;

    /** This instance's id in the messages it publishes, so that it ignores its own. */
    private final String origin = UUID.randomUUID().toString();

    private final LocalCooldownStore local;

    private final Duration probeInterval;

    private final ScheduledThreadPoolExecutor executor;

    private final RedisConnector connector;

    /** Keys cooled locally and not yet written to Redis. */
    private final Set<String> unwritten = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean flushQueued = new AtomicBoolean();

    private final AtomicBoolean synchronisationQueued = new AtomicBoolean();

    private final LongAdder errors = new LongAdder();

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private final AtomicBoolean closed = new AtomicBoolean();

    private final Object linkLock = new Object();

    /** The store's connections to Redis while it has them; guarded by {@link #linkLock}. */
    private @Nullable RedisLink link;

    /** Whether an outage has been reported and not yet ended; confined to the store's thread. */
    private boolean inOutage;

    private volatile boolean reachable;

    private RedisCooldownStore(Builder builder) {
        this.namespace = builder.namespace;
        this.keyPrefix = builder.namespace + ":inference-retry:cooldown:";
        this.keyPattern = (escapeGlob(this.keyPrefix) + "*").getBytes(UTF_8);
        this.channel = (builder.namespace + ":inference-retry:cooldowns").getBytes(UTF_8);
        this.local = LocalCooldownStore.withClock(builder.nanoTime);
        this.probeInterval = builder.probeInterval;
        LettuceConnectionFactory connectionFactory = builder.connectionFactory;
        Duration deadline = (builder.deadline != null) ? builder.deadline : deadlineFor(builder.probeInterval);
        Duration connectWait = (builder.deadline != null) ? builder.deadline
                : RedisLink.connectWait(connectionFactory, deadline);
        String threadName = "inference-retry-cooldown-" + builder.namespace;
        this.connector = new RedisConnector(
                () -> RedisLink.open(connectionFactory, deadline, this::heard, this::requestSynchronisation),
                connectWait, threadName + "-connect");
        this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        });
        this.executor.setRemoveOnCancelPolicy(true);
        this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    /**
     * Starts building a store.
     *
     * @param connectionFactory the application's connection factory, Lettuce's; the store makes its
     *     own connections with its client, and never changes, stops or closes the factory
     * @param namespace the prefix of the store's Redis keys and channel, not blank; instances with the
     *     same namespace share their cool-downs
     * @return the builder
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code connectionFactory} is not a
     *     {@link LettuceConnectionFactory}, or {@code namespace} is blank
     */
    public static Builder builder(RedisConnectionFactory connectionFactory, String namespace) {
        return new Builder(connectionFactory, namespace);
    }

    /**
     * Returns the deadline of each exchange with Redis for a probe interval: twice the interval, so
     * that a probe may answer late without passing for an outage, and between one and five seconds.
     */
    static Duration deadlineFor(Duration probeInterval) {
        Duration twice = Durations.scale(probeInterval, 2);
        if (twice.compareTo(SHORTEST_DEADLINE) < 0) {
            return SHORTEST_DEADLINE;
        }
        return (twice.compareTo(LONGEST_DEADLINE) > 0) ? LONGEST_DEADLINE : twice;
    }

    @SuppressWarnings("FutureReturnValueIgnored")
    private void start(Duration startupWait) {
        submit(this::connectAndSynchronise);
        long interval = Durations.toWaitNanos(this.probeInterval);
        // Ended by shutting the executor down in close(); a failing probe counts and logs its own error.
        this.executor.scheduleWithFixedDelay(this::probe, interval, interval, TimeUnit.NANOSECONDS);
        try {
            this.firstAttempt.get(Durations.toWaitNanos(startupWait), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            logger.debug("Redis has not answered within " + startupWait + ": the cool-downs of namespace '"
                    + this.namespace + "' are synchronised in the background");
        }
        catch (ExecutionException ex) {
            throw new IllegalStateException("The first attempt never fails", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Returns how long the cool-down in force for a key still lasts, from the local copy: never a
     * Redis round trip, never an exception because of Redis.
     *
     * @param key the provider account
     * @return the time left, or {@link Duration#ZERO} when no cool-down is in force; never negative
     */
    @Override
    public Duration remaining(String key) {
        return this.local.remaining(key);
    }

    /**
     * Cools a key down for a duration from now, unless a cool-down already in force ends later. The
     * local copy is updated before this method returns; Redis and the other instances learn it
     * shortly after, off the caller's thread, or when Redis can be reached again. Never waits for
     * Redis, never throws because of it. After {@link #close()}, only the local copy is updated.
     *
     * @param key the provider account
     * @param duration how long, positive; capped at {@link Backoff#RETRY_AFTER_CAP}
     * @throws NullPointerException if an argument is {@code null}
     */
    @Override
    public void coolDown(String key, Duration duration) {
        coolDown(key, duration, CooldownReason.RETRY_AFTER);
    }

    /**
     * Cools a key down for a reason, as {@link #coolDown(String, Duration)} does; the reason travels
     * with the cool-down to Redis and the other instances.
     *
     * @param key the provider account
     * @param duration how long, positive; capped at {@link Backoff#RETRY_AFTER_CAP}
     * @param reason why
     * @throws NullPointerException if an argument is {@code null}
     */
    @Override
    public void coolDown(String key, Duration duration, CooldownReason reason) {
        this.local.coolDown(key, duration, reason);
        if (this.local.remaining(key).isZero()) {
            return;
        }
        this.unwritten.add(key);
        if (this.flushQueued.compareAndSet(false, true)) {
            submit(this::flush);
        }
    }

    /**
     * Returns why the cool-down in force for a key was set, from the local copy: on this instance, or
     * on the instance it heard the cool-down from.
     *
     * @param key the provider account
     * @return the reason, or empty when no cool-down is in force
     */
    @Override
    public Optional<CooldownReason> reason(String key) {
        return this.local.reason(key);
    }

    /**
     * Returns the number of exchanges with Redis that failed since the store was built: writes,
     * probes, connection attempts, subscriptions and synchronisations, one that had no answer within
     * the store's deadline included. For a meter such as {@code inference.retry.cooldown.errors}.
     *
     * @return the count, never negative
     */
    public long errorCount() {
        return this.errors.sum();
    }

    /**
     * Tells whether the store's last exchange with Redis succeeded: {@code false} before the first
     * one and during an outage.
     *
     * @return whether cool-downs are being shared now
     */
    public boolean isRedisReachable() {
        return this.reachable;
    }

    /**
     * Returns the keys cooling down now in the local copy, with the time each has left, for
     * diagnostics.
     *
     * @return a snapshot, keyed by provider account
     */
    public Map<String, Duration> snapshot() {
        return this.local.snapshot();
    }

    /**
     * Returns the namespace whose cool-downs this store shares.
     *
     * @return the namespace, as given to the builder
     */
    public String namespace() {
        return this.namespace;
    }

    /**
     * Stops sharing: lets queued writes finish for up to two seconds, stops the store's threads and
     * closes its connections, including one still being attempted, once it is made. The connection
     * factory is left open. Idempotent; the local copy still answers afterwards.
     */
    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        this.executor.shutdown();
        try {
            if (!this.executor.awaitTermination(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                this.executor.shutdownNow();
                this.executor.awaitTermination(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        catch (InterruptedException ex) {
            this.executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        this.connector.close();
        closeLink();
    }

    /**
     * Same as {@link #close()}, for a bean factory that destroys its beans.
     */
    @Override
    public void destroy() {
        close();
    }

    @Override
    public String toString() {
        return "RedisCooldownStore[namespace=" + this.namespace + ", reachable=" + this.reachable + ", local="
                + this.local.snapshot() + "]";
    }

    /**
     * Waits until every exchange queued before this call has run, for tests that must know a write
     * has reached Redis.
     */
    void awaitQueued(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture.runAsync(() -> {
        }, this.executor).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void submit(Runnable task) {
        try {
            this.executor.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // Closed: the local copy goes on alone.
        }
    }

    private void requestSynchronisation() {
        if (this.synchronisationQueued.compareAndSet(false, true)) {
            submit(this::synchronise);
        }
    }

    /** Takes in a cool-down that another instance published; runs on the client's thread. */
    private void heard(byte[] body) {
        CooldownMessage.parse(body)
            .filter((published) -> !published.origin().equals(this.origin))
            .ifPresent((published) -> this.local.coolDown(published.key(), Duration.ofMillis(published.ttlMillis()),
                    published.reason()));
    }

    private @Nullable RedisLink currentLink() {
        synchronized (this.linkLock) {
            return this.link;
        }
    }

    private void closeLink() {
        RedisLink current;
        synchronized (this.linkLock) {
            current = this.link;
            this.link = null;
        }
        if (current != null) {
            current.close();
        }
    }

    // Everything below runs on the store's thread.

    private void connectAndSynchronise() {
        try {
            RedisLink opened = this.connector.connect();
            synchronized (this.linkLock) {
                if (this.closed.get()) {
                    opened.close();
                    return;
                }
                this.link = opened;
            }
            opened.subscribe(this.channel);
            synchronise(opened);
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void probe() {
        RedisLink current = currentLink();
        if (current == null) {
            connectAndSynchronise();
            return;
        }
        try {
            current.ping();
            this.reachable = true;
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void synchronise() {
        this.synchronisationQueued.set(false);
        RedisLink current = currentLink();
        if (current == null) {
            // The probe that connects again synchronises then.
            return;
        }
        try {
            synchronise(current);
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void synchronise(RedisLink current) {
        this.unwritten.addAll(this.local.snapshot().keySet());
        writeUnwritten(current);
        current.forEachTimeToLive(this.keyPattern, (redisKey, ttl, value) -> {
            if (ttl > 0) {
                String key = new String(redisKey, UTF_8).substring(this.keyPrefix.length());
                this.local.coolDown(key, Duration.ofMillis(ttl),
                        CooldownMessage.reason((value != null) ? new String(value, UTF_8) : ""));
            }
        });
        this.reachable = true;
        if (this.inOutage) {
            this.inOutage = false;
            logger.info("Redis is reachable again: the cool-downs of namespace '" + this.namespace
                    + "' are shared again");
        }
        this.firstAttempt.complete(null);
    }

    private void flush() {
        this.flushQueued.set(false);
        RedisLink current = currentLink();
        if (this.inOutage || current == null) {
            // The synchronisation that ends the outage writes every cool-down still in force.
            return;
        }
        try {
            writeUnwritten(current);
            this.reachable = true;
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    // A concurrent set: removing while iterating is safe, and a key added meanwhile waits for the next round.
    @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
    private void writeUnwritten(RedisLink current) {
        for (String key : this.unwritten) {
            this.unwritten.remove(key);
            Duration left = this.local.remaining(key);
            if (left.isZero()) {
                continue;
            }
            long ttlMillis = ceilMillis(left);
            CooldownReason reason = this.local.reason(key).orElse(CooldownReason.RETRY_AFTER);
            byte[] message = new CooldownMessage(ttlMillis, this.origin, reason, key).encode();
            try {
                current.setUnlessLonger((this.keyPrefix + key).getBytes(UTF_8), ttlMillis,
                        CooldownMessage.tag(reason).getBytes(UTF_8), this.channel, message);
            }
            catch (RuntimeException ex) {
                this.unwritten.add(key);
                throw ex;
            }
        }
    }

    /**
     * Records a failed exchange, unless it is one that close() cut short, which says nothing about
     * Redis, and drops the store's connections: the next probe opens new ones, as soon as Redis
     * answers, rather than waiting for the client's reconnection.
     */
    private void failed(RuntimeException ex) {
        closeLink();
        if (!this.closed.get()) {
            recordFailure(ex);
        }
        // After the failure is counted and logged, so that build() returns a store that shows it.
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

    private static long ceilMillis(Duration duration) {
        long nanos = duration.toNanos();
        return nanos / 1_000_000 + ((nanos % 1_000_000 == 0) ? 0 : 1);
    }

    /** Escapes the characters that a SCAN pattern would read as wildcards. */
    static String escapeGlob(String literal) {
        StringBuilder escaped = new StringBuilder(literal.length());
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }

    /**
     * Builds a {@link RedisCooldownStore}. Not thread-safe; each {@link #build()} makes an
     * independent store.
     */
    public static final class Builder {

        private final LettuceConnectionFactory connectionFactory;

        private final String namespace;

        private LongSupplier nanoTime = System::nanoTime;

        private Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        private @Nullable Duration deadline;

        private Duration startupWait = DEFAULT_STARTUP_WAIT;

        private Builder(RedisConnectionFactory connectionFactory, String namespace) {
            Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
            if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
                throw new IllegalArgumentException("connectionFactory must be Lettuce's, was a "
                        + connectionFactory.getClass().getName() + ": the store subscribes without blocking a thread "
                        + "and bounds every exchange with Redis, which only Lettuce's connections allow");
            }
            this.connectionFactory = lettuce;
            Objects.requireNonNull(namespace, "namespace must not be null");
            if (namespace.isBlank()) {
                throw new IllegalArgumentException(
                        "namespace must not be blank, was '" + namespace + "': name the application's instances");
            }
            this.namespace = namespace;
        }

        /**
         * Sets the monotonic clock on which the local copy counts cool-downs down, such as a test's
         * virtual time; {@link System#nanoTime()} by default.
         *
         * @param nanoTime a clock in nanoseconds, as {@link System#nanoTime()} is
         * @return this builder
         * @throws NullPointerException if {@code nanoTime} is {@code null}
         */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime must not be null");
            return this;
        }

        /**
         * Sets how often the store checks that Redis answers, and connects again after an outage;
         * {@link #DEFAULT_PROBE_INTERVAL} by default. It also sets the deadline of every exchange with
         * Redis: twice the interval, at least one second and at most five.
         *
         * @param probeInterval the interval, positive
         * @return this builder
         * @throws NullPointerException if {@code probeInterval} is {@code null}
         * @throws IllegalArgumentException if {@code probeInterval} is not positive
         */
        public Builder probeInterval(Duration probeInterval) {
            Objects.requireNonNull(probeInterval, "probeInterval must not be null");
            if (probeInterval.isNegative() || probeInterval.isZero()) {
                throw new IllegalArgumentException("probeInterval must be positive, was " + probeInterval);
            }
            this.probeInterval = probeInterval;
            return this;
        }

        /**
         * Sets the deadline of every exchange with Redis, and how long a connection attempt may take,
         * instead of deriving them from the probe interval and the connect timeout, for tests that
         * cannot spend seconds on them.
         */
        Builder deadline(Duration deadline) {
            this.deadline = Objects.requireNonNull(deadline, "deadline must not be null");
            return this;
        }

        /**
         * Sets how long {@link #build()} waits for the first synchronisation with Redis before it
         * returns a store that synchronises in the background; {@link #DEFAULT_STARTUP_WAIT} by
         * default. When Redis refuses connections, {@code build()} returns as soon as that is known.
         *
         * @param startupWait the longest wait, zero or positive
         * @return this builder
         * @throws NullPointerException if {@code startupWait} is {@code null}
         * @throws IllegalArgumentException if {@code startupWait} is negative
         */
        public Builder startupWait(Duration startupWait) {
            Objects.requireNonNull(startupWait, "startupWait must not be null");
            if (startupWait.isNegative()) {
                throw new IllegalArgumentException("startupWait must not be negative, was " + startupWait);
            }
            this.startupWait = startupWait;
            return this;
        }

        /**
         * Builds and starts the store: subscribes, synchronises and waits for that at most
         * {@link #startupWait(Duration) startupWait}. Never fails because Redis cannot be reached.
         *
         * @return the store, which the caller closes
         */
        public RedisCooldownStore build() {
            RedisCooldownStore store = new RedisCooldownStore(this);
            store.start(this.startupWait);
            return store;
        }
    }
}
