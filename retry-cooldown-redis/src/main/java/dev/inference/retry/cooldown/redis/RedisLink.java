package dev.inference.retry.cooldown.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.inference.client.Durations;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The {@link RedisCooldownStore}'s own connections to Redis, one for commands and one for its
 * subscription, made from the application's Lettuce client, and the store's exchanges on them. Every
 * command waits at most the store's deadline, whatever the client's command timeout, and one still
 * unanswered then is cancelled: Lettuce never sends it late, when the client reconnects.
 *
 * <p>The connections are the store's, never the factory's shared one, so that the store can close
 * them when an outage begins and open new ones as soon as Redis answers, instead of waiting for the
 * client's reconnection, whose backoff grows to 30 seconds. The trap: {@link #open} blocks while it
 * connects (Lettuce connects synchronously when it is not given the client's URI, which is not
 * public), so the store calls it through a {@link RedisConnector}, off its own thread. Closing never
 * sends anything to Redis. Used by one thread at a time; the listener's callbacks run on Lettuce's.
 */
final class RedisLink implements AutoCloseable {

    private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

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

    private final StatefulConnection<byte[], byte[]> connection;

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;

    private final StatefulRedisPubSubConnection<byte[], byte[]> subscription;

    private final Duration deadline;

    private final AtomicBoolean closed = new AtomicBoolean();

    private RedisLink(StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
            StatefulRedisPubSubConnection<byte[], byte[]> subscription, Duration deadline) {
        this.connection = connection;
        this.commands = commands;
        this.subscription = subscription;
        this.deadline = deadline;
    }

    /**
     * Returns how long the store lets a connection attempt take before it counts it as a failure: the
     * factory's connect timeout (Spring Boot's {@code spring.data.redis.connect-timeout}, Lettuce's
     * default 10 s), or the deadline when that is longer. A refused connection fails at once; but a
     * client's first connection, which starts its event loops, can take seconds on a busy host
     * starting an application, and must not pass for an outage.
     */
    static Duration connectWait(LettuceConnectionFactory factory, Duration deadline) {
        Duration connectTimeout = factory.getClientConfiguration()
            .getClientOptions()
            .map((options) -> options.getSocketOptions().getConnectTimeout())
            .orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
        return (connectTimeout.compareTo(deadline) > 0) ? connectTimeout : deadline;
    }

    /**
     * Connects to the Redis of the factory's client as the factory's own connections do (same address,
     * credentials, database and client name: the client's own URI), and blocks until both connections
     * are open or one has failed. Nothing is subscribed yet. A standalone or Sentinel factory makes a
     * {@link RedisClient}, a Cluster one a {@link RedisClusterClient}; the tests cover standalone.
     *
     * @param published called with the body of every message published on the channel subscribed to
     * @param resubscribed called when the client has subscribed again by itself, after reconnecting
     */
    static RedisLink open(LettuceConnectionFactory factory, Duration deadline, Consumer<byte[]> published,
            Runnable resubscribed) {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.connect(CODEC);
            return withSubscription(connection, connection.async(), () -> cluster.connectPubSub(CODEC), deadline,
                    new Listener(published, resubscribed));
        }
        if (client instanceof RedisClient standalone) {
            StatefulRedisConnection<byte[], byte[]> connection = standalone.connect(CODEC);
            return withSubscription(connection, connection.async(), () -> standalone.connectPubSub(CODEC), deadline,
                    new Listener(published, resubscribed));
        }
        throw new IllegalStateException("Unexpected Lettuce client " + client.getClass().getName());
    }

    @SuppressWarnings("FutureReturnValueIgnored")
    private static RedisLink withSubscription(StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands,
            Supplier<? extends StatefulRedisPubSubConnection<byte[], byte[]>> subscribing, Duration deadline,
            Listener listener) {
        StatefulRedisPubSubConnection<byte[], byte[]> subscription;
        try {
            subscription = subscribing.get();
        }
        catch (RuntimeException ex) {
            // Closing is local: nothing to wait for, and the failure to connect is what is reported.
            connection.closeAsync();
            throw ex;
        }
        subscription.addListener(listener);
        return new RedisLink(connection, commands, subscription, deadline);
    }

    /** Subscribes to a channel, and waits for Redis to confirm it. */
    void subscribe(byte[] channel) {
        await("SUBSCRIBE", this.subscription.async().subscribe(channel));
    }

    /** Checks that Redis answers on the command connection. */
    void ping() {
        await("PING", this.commands.ping());
    }

    /**
     * Sets a key to a value that expires in {@code ttlMillis} unless the key already expires later, and
     * when it did set it, publishes the message on the channel: one script, so that instances racing to
     * cool the same key never shorten each other's cool-down.
     */
    void setUnlessLonger(byte[] key, long ttlMillis, byte[] value, byte[] channel, byte[] message) {
        RedisFuture<Long> set = this.commands.eval(SET_UNLESS_LONGER, ScriptOutputType.INTEGER, new byte[][] { key },
                Long.toString(ttlMillis).getBytes(UTF_8), channel, message, value);
        await("EVAL", set);
    }

    /**
     * Calls the action with each key that matches a {@code SCAN} pattern, its time left in milliseconds
     * ({@code PTTL}: -1 without expiry, -2 when the key has gone meanwhile) and its value ({@code null}
     * when it has gone). Each step's {@code PTTL}s and {@code GET}s are sent together, and each round
     * trip has the deadline.
     */
    void forEachTimeToLive(byte[] pattern, TimeToLive action) {
        ScanArgs scan = ScanArgs.Builder.matches(pattern).limit(SCAN_COUNT);
        KeyScanCursor<byte[]> cursor = await("SCAN", this.commands.scan(scan));
        while (true) {
            List<RedisFuture<Long>> ttls = new ArrayList<>(cursor.getKeys().size());
            List<RedisFuture<byte[]>> values = new ArrayList<>(cursor.getKeys().size());
            for (byte[] key : cursor.getKeys()) {
                ttls.add(this.commands.pttl(key));
                values.add(this.commands.get(key));
            }
            for (int i = 0; i < ttls.size(); i++) {
                action.accept(cursor.getKeys().get(i), await("PTTL", ttls.get(i)), awaitNullable("GET", values.get(i)));
            }
            if (cursor.isFinished()) {
                return;
            }
            cursor = await("SCAN", this.commands.scan(cursor, scan));
        }
    }

    /** What {@link #forEachTimeToLive} tells of each key. */
    @FunctionalInterface
    interface TimeToLive {

        void accept(byte[] key, long ttlMillis, byte @Nullable [] value);
    }

    /**
     * Closes both connections: commands still queued fail, and the client stops reconnecting them.
     * Closing is local, never an exchange with Redis; it waits at most the deadline for the client to
     * let go of them, so that a client shut down next does not close them again. Idempotent.
     */
    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<Void> closing = CompletableFuture.allOf(this.subscription.closeAsync(),
                this.connection.closeAsync());
        try {
            closing.get(Durations.toWaitNanos(this.deadline), TimeUnit.NANOSECONDS);
        }
        catch (ExecutionException | TimeoutException ex) {
            // Nothing is left to do: the client has released the connections, or does when its close ends.
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for a command's answer at most the deadline, then cancels it. The caller's thread being
     * interrupted cancels it too.
     */
    /** Waits for an answer that may be {@code null}, such as a {@code GET} of a key that has gone. */
    private <T> @Nullable T awaitNullable(String command, RedisFuture<T> answer) {
        return await(command, answer);
    }

    private <T> T await(String command, RedisFuture<T> answer) {
        try {
            return answer.get(Durations.toWaitNanos(this.deadline), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            answer.cancel(true);
            throw new RedisCommandTimeoutException(command + " had no answer within " + this.deadline.toMillis()
                    + " ms, the cool-down store's deadline");
        }
        catch (ExecutionException ex) {
            Throwable failure = ex.getCause();
            throw (failure instanceof RuntimeException runtime) ? runtime : new RedisException(failure);
        }
        catch (InterruptedException ex) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new RedisCommandInterruptedException(ex);
        }
    }

    /**
     * Hears the messages published on the subscription's channel, and the client's re-subscriptions
     * after the first.
     */
    private static final class Listener extends RedisPubSubAdapter<byte[], byte[]> {

        private final Consumer<byte[]> published;

        private final Runnable resubscribed;

        /** Whether the confirmation of the subscription the store asked for has come. */
        private final AtomicBoolean confirmed = new AtomicBoolean();

        private Listener(Consumer<byte[]> published, Runnable resubscribed) {
            this.published = published;
            this.resubscribed = resubscribed;
        }

        @Override
        public void message(byte[] channel, byte[] message) {
            this.published.accept(message);
        }

        @Override
        public void subscribed(byte[] channel, long count) {
            // The first is the store's own subscription, which synchronises anyway. A later one means the
            // client reconnected and subscribed again by itself: what was published meanwhile was missed.
            if (!this.confirmed.compareAndSet(false, true)) {
                this.resubscribed.run();
            }
        }
    }
}
