package dev.inference.retry.cooldown.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The replication of the {@link RedisCooldownStore}: what it writes to Redis and publishes to the
 * other instances, and what it takes from them into the local copy. A cool-down is written as a key
 * under the namespace that expires when the cool-down ends (a later one never shortened, in one
 * script) and published as a {@link CooldownMessage} that carries the time left, so that each
 * instance counts it down on its own clock. A new link subscribes, then synchronises: it writes every
 * cool-down of the local copy and reads every one in force from the keys' time to live.
 *
 * <p>The exchanges run on the {@link RedisSession}'s thread and throw when Redis fails; a key whose
 * write failed stays queued for the next round. {@link #heard} runs on the client's thread.
 */
final class CooldownReplication {

    private final LocalCooldownStore local;

    private final String keyPrefix;

    private final byte[] keyPattern;

    private final byte[] channel;

    /** This instance's id in the messages it publishes, so that it ignores its own. */
    private final String origin = UUID.randomUUID().toString();

    /** Keys cooled locally and not yet written to Redis. */
    private final Set<String> unwritten = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean flushQueued = new AtomicBoolean();

    private final AtomicBoolean synchronisationQueued = new AtomicBoolean();

    CooldownReplication(String namespace, LocalCooldownStore local) {
        this.local = local;
        this.keyPrefix = namespace + ":inference-retry:cooldown:";
        this.keyPattern = (escapeGlob(this.keyPrefix) + "*").getBytes(UTF_8);
        this.channel = (namespace + ":inference-retry:cooldowns").getBytes(UTF_8);
    }

    /** Queues a key cooled locally; tells whether a flush must be submitted (none is queued yet). */
    boolean queue(String key) {
        this.unwritten.add(key);
        return this.flushQueued.compareAndSet(false, true);
    }

    /** Tells whether a synchronisation must be submitted (none is queued yet). */
    boolean requestSynchronisation() {
        return this.synchronisationQueued.compareAndSet(false, true);
    }

    /** Marks the queued flush as begun: a key queued from now on asks for another. */
    void flushBegins() {
        this.flushQueued.set(false);
    }

    /** Marks the queued synchronisation as begun. */
    void synchronisationBegins() {
        this.synchronisationQueued.set(false);
    }

    /** Takes in a cool-down that another instance published; runs on the client's thread. */
    void heard(byte[] body) {
        CooldownMessage.parse(body)
            .filter((published) -> !published.origin().equals(this.origin))
            .ifPresent((published) -> this.local.coolDown(published.key(), Duration.ofMillis(published.ttlMillis()),
                    published.reason()));
    }

    /** Subscribes a new link to the channel, then synchronises. */
    void connected(RedisLink link) {
        link.subscribe(this.channel);
        synchronise(link);
    }

    /** Writes every cool-down of the local copy, then takes in every one in force in Redis. */
    void synchronise(RedisLink link) {
        this.unwritten.addAll(this.local.snapshot().keySet());
        writeUnwritten(link);
        link.forEachTimeToLive(this.keyPattern, (redisKey, ttl, value) -> {
            if (ttl > 0) {
                String key = new String(redisKey, UTF_8).substring(this.keyPrefix.length());
                this.local.coolDown(key, Duration.ofMillis(ttl),
                        CooldownMessage.reason((value != null) ? new String(value, UTF_8) : ""));
            }
        });
    }

    // A concurrent set: removing while iterating is safe, and a key added meanwhile waits for the next round.
    @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
    void writeUnwritten(RedisLink link) {
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
                link.setUnlessLonger((this.keyPrefix + key).getBytes(UTF_8), ttlMillis,
                        CooldownMessage.tag(reason).getBytes(UTF_8), this.channel, message);
            }
            catch (RuntimeException ex) {
                this.unwritten.add(key);
                throw ex;
            }
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
}
