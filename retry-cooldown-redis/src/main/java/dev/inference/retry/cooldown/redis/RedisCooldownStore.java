package dev.inference.retry.cooldown.redis;

import dev.inference.client.Durations;
import dev.inference.retry.Backoff;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link CooldownStore} shared by every instance of an application through its Redis, on the
 * application's own Lettuce {@link RedisConnectionFactory}. {@link #remaining} answers from the local
 * copy, with no Redis round trip; {@link #coolDown} updates the copy, and the replication writes the
 * cool-down to Redis and publishes it to the other instances, off the caller's thread. Each instance
 * counts a cool-down on its own clock, so hosts' clocks need not agree, and a later cool-down never
 * shortens an earlier one. It fails open: with Redis down, calls go on with the local copy and never
 * wait for Redis, one warning is logged per outage, {@link #errorCount()} counts the failures, and what
 * was set meanwhile is written and published once Redis answers.
 *
 * <p>Three parts: the local copy (what this instance knows), {@link CooldownReplication} (what it
 * writes, publishes and hears) and {@link RedisSession} (its thread, its connections, and the probe that
 * notices an outage and connects again). Every exchange waits at most the store's own deadline, never
 * the factory's command timeout. The trap: {@link #close()} is the one way to stop it, and the
 * application must call it before the connection factory stops, whose client the store's connections
 * belong to. How it works, and how fast it notices and recovers: {@code docs/cooldown.md}. Thread-safe.
 */
public final class RedisCooldownStore implements CooldownStore, AutoCloseable {

    /** Probe interval unless the builder is given another. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);

    /** Longest wait of {@link Builder#build()} for the first synchronisation unless given another. */
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(2);

    /**
     * Shortest deadline of an exchange: Redis answers in well under a millisecond, but a busy host's
     * pause must not pass for an outage.
     */
    private static final Duration SHORTEST_DEADLINE = Duration.ofSeconds(1);

    /** Longest deadline of an exchange, however seldom the store probes: an outage is noticed in seconds. */
    private static final Duration LONGEST_DEADLINE = Duration.ofSeconds(5);

    private final String namespace;

    private final LocalCooldownStore local;

    private final CooldownReplication replication;

    private final RedisSession session;

    private RedisCooldownStore(Builder builder) {
        this.namespace = builder.namespace;
        this.local = LocalCooldownStore.withClock(builder.nanoTime);
        this.replication = new CooldownReplication(builder.namespace, this.local);
        LettuceConnectionFactory connectionFactory = builder.connectionFactory;
        Duration deadline = (builder.deadline != null) ? builder.deadline : deadlineFor(builder.probeInterval);
        Duration connectWait = (builder.deadline != null) ? builder.deadline
                : RedisLink.connectWait(connectionFactory, deadline);
        RedisConnector connector = new RedisConnector(
                () -> RedisLink.open(connectionFactory, deadline, this.replication::heard, this::resynchronise),
                connectWait, RedisSession.threadName(builder.namespace) + "-connect");
        this.session = new RedisSession(builder.namespace, connector, builder.probeInterval,
                this.replication::connected);
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

    /**
     * Starts connecting, subscribing and synchronising in the background, and probing; never waits
     * for Redis. Does nothing once started or closed.
     */
    void start() {
        this.session.start();
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
        if (this.replication.queue(key)) {
            this.session.submit(this::flush);
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
        return this.session.errorCount();
    }

    /**
     * Tells whether the store's last exchange with Redis succeeded: {@code false} before the first
     * one and during an outage.
     *
     * @return whether cool-downs are being shared now
     */
    public boolean isRedisReachable() {
        return this.session.isReachable();
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
     * Stops sharing: lets queued writes finish for up to two seconds (two more while the first
     * connection is being made), stops the store's threads and closes its connections, including one
     * still being attempted, once it is made. The connection factory is left open. Idempotent; the
     * local copy still answers afterwards.
     */
    @Override
    public void close() {
        this.session.close();
    }

    @Override
    public String toString() {
        return "RedisCooldownStore[namespace=" + this.namespace + ", reachable=" + isRedisReachable() + ", local="
                + this.local.snapshot() + "]";
    }

    /**
     * Waits until every exchange queued before this call has run, for tests that must know a write
     * has reached Redis.
     */
    void awaitQueued(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        this.session.awaitQueued(timeout);
    }

    /** Called on the client's thread when it has subscribed again by itself: what was published meanwhile was missed. */
    private void resynchronise() {
        if (this.replication.requestSynchronisation()) {
            this.session.submit(() -> {
                this.replication.synchronisationBegins();
                this.session.exchange(this.replication::synchronise);
            });
        }
    }

    private void flush() {
        this.replication.flushBegins();
        this.session.exchange(this.replication::writeUnwritten);
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
            RedisCooldownStore store = unstarted();
            store.start();
            store.session.awaitFirstAttempt(this.startupWait);
            return store;
        }

        /**
         * Builds a store that neither connects nor starts a thread until {@link RedisCooldownStore#start()}:
         * the auto-configuration starts it once the application context has refreshed.
         */
        RedisCooldownStore unstarted() {
            return new RedisCooldownStore(this);
        }
    }
}
