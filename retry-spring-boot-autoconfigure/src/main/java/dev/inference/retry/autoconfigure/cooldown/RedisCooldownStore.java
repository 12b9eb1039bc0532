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
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * A {@link CooldownStore} shared by every instance of an application through its Redis, on Spring
 * Data Redis and the application's own {@link RedisConnectionFactory}.
 *
 * <p><b>Where cool-downs live.</b> Each key {@code k} is the Redis key
 * {@code <namespace>:inference-retry:cooldown:k}, whose value is the cool-down's
 * {@link CooldownReason} and which expires when its cool-down ends: Redis's own expiry ({@code PTTL})
 * is the authority, so the instances' clocks never need to agree. Every
 * instance keeps a local copy on its own monotonic clock, and:
 * <ul>
 * <li>{@link #remaining} answers from that copy alone: a call costs no Redis round trip, whether a
 * cool-down is in force or not;</li>
 * <li>{@link #coolDown} updates the copy at once, then, off the caller's thread, sets the Redis key
 * unless its cool-down already ends later (one script, so that a later cool-down never shortens an
 * earlier one across instances) and, when it did, publishes the time left on the channel
 * {@code <namespace>:inference-retry:cooldowns};</li>
 * <li>each instance subscribes to that channel and counts a published cool-down from the moment it
 * hears it: a message carries a duration, never an instant, and a receiver may wait longer than the
 * sender by the message's transit time (milliseconds on one host), never shorter.</li>
 * </ul>
 *
 * <p><b>Starting and reconnecting.</b> Whenever the store (re)subscribes, at start, after an outage,
 * or when the client re-establishes the subscription by itself, it <em>synchronises</em>: it writes
 * every cool-down in force in its local copy (so a restarted Redis, which lost its keys, learns them
 * again, and the other instances hear them), then {@code SCAN}s the namespace and takes each key's
 * {@code PTTL} into its copy. A copy that heard a cool-down runs late by the transit time, so a
 * synchronisation may lengthen that cool-down by as much; it never shortens one.
 * {@link Builder#build()} waits for the first synchronisation, at most
 * {@link Builder#startupWait(Duration) startupWait}.
 *
 * <p><b>Failures.</b> The store fails open: when Redis cannot be reached, at start or later, calls go
 * on with the local copy, and {@code remaining} and {@code coolDown} never throw and never wait for
 * Redis. One warning is logged per outage, and one information message when Redis answers again;
 * {@link #errorCount()} counts every failed exchange with Redis (a write, a probe, a
 * synchronisation). Nothing set during an outage is lost: the synchronisation that ends the outage
 * writes and publishes every cool-down still in force. An outage is noticed by a failed write or by a
 * probe ({@code PING}) sent every {@link Builder#probeInterval(Duration) probeInterval} while no
 * other exchange shows it; how quickly depends on the connection factory's command timeout (Spring
 * Boot's {@code spring.data.redis.timeout}; Lettuce's default is a minute), as a command sent while
 * the client reconnects waits for it. Writes wait while an outage lasts: they are never attempted one
 * by one against an unreachable server. The probe does not rely on the client's own reconnection,
 * which an application may have turned off: in an outage the store drops its subscription and
 * subscribes again once Redis answers.
 *
 * <p>All exchanges with Redis run on one daemon thread that the store owns; {@link #close()} (or
 * {@link #destroy()}) stops it and releases the subscription's connection, and leaves the connection
 * factory, which belongs to the application, alone. Thread-safe.
 */
public final class RedisCooldownStore implements CooldownStore, AutoCloseable, DisposableBean {

    /** Probe interval unless the builder is given another. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);

    /** Longest wait of {@link Builder#build()} for the first synchronisation unless given another. */
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(2);

    /** How long {@link #close()} lets queued writes finish, then how long it waits for the thread to stop. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    /** Keys asked per SCAN step: a namespace holds one key per provider account in a cool-down. */
    private static final int SCAN_COUNT = 100;

    /**
     * KEYS[1] the cool-down's key; ARGV[1] its time left in ms; ARGV[2] the channel; ARGV[3] the
     * message; ARGV[4] its reason, kept as the key's value. A missing key's PTTL is -2 and one without
     * expiry -1, so both are replaced.
     */
    private static final byte[] SET_UNLESS_LONGER = """
            local ttl = tonumber(ARGV[1])
            if redis.call('PTTL', KEYS[1]) >= ttl then
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[4], 'PX', ttl)
            redis.call('PUBLISH', ARGV[2], ARGV[3])
            return 1
            """.getBytes(UTF_8);

    private static final Log logger = LogFactory.getLog(RedisCooldownStore.class);

    private final RedisConnectionFactory connectionFactory;

    private final String namespace;

    private final String keyPrefix;

    private final byte[] channel;

    /** This instance's id in the messages it publishes, so that it ignores its own. */
    private final String origin = UUID.randomUUID().toString();

    private final LocalCooldownStore local;

    private final Duration probeInterval;

    private final ScheduledThreadPoolExecutor executor;

    /** Keys cooled locally and not yet written to Redis. */
    private final Set<String> unwritten = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean flushQueued = new AtomicBoolean();

    private final AtomicBoolean synchronisationQueued = new AtomicBoolean();

    private final LongAdder errors = new LongAdder();

    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    private final AtomicBoolean closed = new AtomicBoolean();

    private final Object subscriptionLock = new Object();

    /** The connection that holds the subscription, if any; guarded by {@link #subscriptionLock}. */
    private @Nullable RedisConnection subscription;

    /** Whether an outage has been reported and not yet ended; confined to the store's thread. */
    private boolean inOutage;

    private volatile boolean reachable;

    private RedisCooldownStore(Builder builder) {
        this.connectionFactory = builder.connectionFactory;
        this.namespace = builder.namespace;
        this.keyPrefix = builder.namespace + ":inference-retry:cooldown:";
        this.channel = (builder.namespace + ":inference-retry:cooldowns").getBytes(UTF_8);
        this.local = LocalCooldownStore.withClock(builder.nanoTime);
        this.probeInterval = builder.probeInterval;
        String threadName = "inference-retry-cooldown-" + builder.namespace;
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
     * @param connectionFactory the application's connection factory, which the store uses but never
     *     closes
     * @param namespace the prefix of the store's Redis keys and channel, not blank; instances with the
     *     same namespace share their cool-downs
     * @return the builder
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code namespace} is blank
     */
    public static Builder builder(RedisConnectionFactory connectionFactory, String namespace) {
        return new Builder(connectionFactory, namespace);
    }

    @SuppressWarnings("FutureReturnValueIgnored")
    private void start(Duration startupWait) {
        submit(this::subscribeAndSynchronise);
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
     * probes, subscriptions and synchronisations. For a meter such as
     * {@code inference.retry.cooldown.errors}.
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
     * Stops sharing: lets queued writes finish for up to two seconds, stops the store's thread and
     * releases its subscription. The connection factory is left open. Idempotent; the local copy
     * still answers afterwards.
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
        closeSubscription();
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

    // Everything below runs on the store's thread.

    private void subscribeAndSynchronise() {
        try {
            subscribe();
            requestSynchronisation();
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void probe() {
        boolean subscribed;
        synchronized (this.subscriptionLock) {
            subscribed = (this.subscription != null);
        }
        if (!subscribed) {
            subscribeAndSynchronise();
            return;
        }
        if (this.inOutage) {
            // Subscribed again, but the last synchronisation failed: only a full one ends the outage.
            requestSynchronisation();
            return;
        }
        try (RedisConnection connection = this.connectionFactory.getConnection()) {
            connection.ping();
            this.reachable = true;
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    private void subscribe() {
        RedisConnection connection = this.connectionFactory.getConnection();
        try {
            connection.subscribe(new Subscriber(), this.channel);
        }
        catch (RuntimeException ex) {
            closeQuietly(connection);
            throw ex;
        }
        synchronized (this.subscriptionLock) {
            if (!this.closed.get() && this.subscription == null) {
                this.subscription = connection;
                return;
            }
        }
        closeQuietly(connection);
    }

    private void synchronise() {
        this.synchronisationQueued.set(false);
        try (RedisConnection connection = this.connectionFactory.getConnection()) {
            this.unwritten.addAll(this.local.snapshot().keySet());
            writeUnwritten(connection);
            ScanOptions options = ScanOptions.scanOptions().match(escapeGlob(this.keyPrefix) + "*").count(SCAN_COUNT)
                .build();
            try (Cursor<byte[]> keys = connection.keyCommands().scan(options)) {
                while (keys.hasNext()) {
                    byte[] redisKey = keys.next();
                    Long ttl = connection.keyCommands().pTtl(redisKey);
                    if (ttl != null && ttl > 0) {
                        String key = new String(redisKey, UTF_8).substring(this.keyPrefix.length());
                        byte[] value = connection.stringCommands().get(redisKey);
                        this.local.coolDown(key, Duration.ofMillis(ttl),
                                CooldownMessage.reason((value != null) ? new String(value, UTF_8) : ""));
                    }
                }
            }
            this.reachable = true;
            if (this.inOutage) {
                this.inOutage = false;
                logger.info("Redis is reachable again: the cool-downs of namespace '" + this.namespace
                        + "' are shared again");
            }
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
        this.firstAttempt.complete(null);
    }

    private void flush() {
        this.flushQueued.set(false);
        if (this.inOutage) {
            // The synchronisation that ends the outage writes every cool-down still in force.
            return;
        }
        try (RedisConnection connection = this.connectionFactory.getConnection()) {
            writeUnwritten(connection);
            this.reachable = true;
        }
        catch (RuntimeException ex) {
            failed(ex);
        }
    }

    // A concurrent set: removing while iterating is safe, and a key added meanwhile waits for the next round.
    @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
    private void writeUnwritten(RedisConnection connection) {
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
                connection.scriptingCommands()
                    .eval(SET_UNLESS_LONGER, ReturnType.INTEGER, 1, (this.keyPrefix + key).getBytes(UTF_8),
                            Long.toString(ttlMillis).getBytes(UTF_8), this.channel, message,
                            CooldownMessage.tag(reason).getBytes(UTF_8));
            }
            catch (RuntimeException ex) {
                this.unwritten.add(key);
                throw ex;
            }
        }
    }

    /** Records a failed exchange, unless it is one that close() cut short, which says nothing about Redis. */
    private void failed(RuntimeException ex) {
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
        // Subscribe afresh once Redis answers, whether or not the client reconnects this one by itself.
        closeSubscription();
    }

    private void closeSubscription() {
        RedisConnection connection;
        synchronized (this.subscriptionLock) {
            connection = this.subscription;
            this.subscription = null;
        }
        if (connection != null) {
            closeQuietly(connection);
        }
    }

    private static void closeQuietly(RedisConnection connection) {
        try {
            connection.close();
        }
        catch (RuntimeException ex) {
            logger.debug("Closing a Redis connection failed", ex);
        }
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
     * Hears the cool-downs that the other instances publish on one subscription's connection, and
     * the client's re-subscriptions after the first.
     */
    private final class Subscriber implements MessageListener, SubscriptionListener {

        /** Whether the confirmation of the subscription this store asked for has come. */
        private final AtomicBoolean confirmed = new AtomicBoolean();

        @Override
        public void onMessage(Message message, byte @Nullable [] pattern) {
            CooldownMessage.parse(message.getBody())
                .filter((published) -> !published.origin().equals(RedisCooldownStore.this.origin))
                .ifPresent((published) -> RedisCooldownStore.this.local.coolDown(published.key(),
                        Duration.ofMillis(published.ttlMillis()), published.reason()));
        }

        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            // The first is the store's own subscription, which synchronises anyway. A later one means the
            // client reconnected and re-subscribed by itself: what was published meanwhile was missed.
            if (!this.confirmed.compareAndSet(false, true)) {
                requestSynchronisation();
            }
        }
    }

    /**
     * Builds a {@link RedisCooldownStore}. Not thread-safe; each {@link #build()} makes an
     * independent store.
     */
    public static final class Builder {

        private final RedisConnectionFactory connectionFactory;

        private final String namespace;

        private LongSupplier nanoTime = System::nanoTime;

        private Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        private Duration startupWait = DEFAULT_STARTUP_WAIT;

        private Builder(RedisConnectionFactory connectionFactory, String namespace) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
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
         * Sets how often the store checks that Redis answers, and subscribes again after an outage;
         * {@link #DEFAULT_PROBE_INTERVAL} by default.
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
