package dev.inference.retry.cooldown;

import dev.inference.client.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * A {@link CooldownStore} in memory, shared by the clients that are given the same instance (in a
 * Spring application, the wrapped beans of one application context; never static).
 *
 * <p>Cool-downs run on a monotonic clock ({@link System#nanoTime()} unless a test supplies another),
 * so a step of the wall clock neither shortens nor stretches them. An expired cool-down is removed by
 * the next look-up of its key. Each key keeps the {@link CooldownReason} of the cool-down that ends
 * last; {@link #coolDown(String, Duration)} sets it as {@link CooldownReason#RETRY_AFTER}.
 * Thread-safe and lock-free.
 */
public final class LocalCooldownStore implements CooldownStore {

    /** The longest cool-down kept, in nanoseconds: that of the longest {@code Retry-After} honoured. */
    static final long LONGEST_NANOS = Duration.ofMinutes(5).toNanos();

    private final LongSupplier nanoTime;

    /** Each key's cool-down: its end, on the {@link #nanoTime} clock, and its reason. */
    private final ConcurrentMap<String, Cooldown> ends = new ConcurrentHashMap<>();

    private LocalCooldownStore(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * Creates an empty store on {@link System#nanoTime()}.
     *
     * @return the store
     */
    public static LocalCooldownStore create() {
        return new LocalCooldownStore(System::nanoTime);
    }

    /**
     * Creates an empty store on a clock of the caller's, such as a test's virtual time. A client
     * that waits with a virtual {@link dev.inference.retry.time.Sleeper} needs its store on the same virtual
     * clock: on the real one, a cool-down would not pass while the sleeper pretends to wait, and the
     * client would ask again until it really had.
     *
     * @param nanoTime a monotonic clock in nanoseconds, as {@link System#nanoTime()} is
     * @return the store
     * @throws NullPointerException if {@code nanoTime} is {@code null}
     */
    public static LocalCooldownStore withClock(LongSupplier nanoTime) {
        return new LocalCooldownStore(Objects.requireNonNull(nanoTime, "nanoTime must not be null"));
    }

    @Override
    public Duration remaining(String key) {
        Cooldown cooldown = this.ends.get(key);
        if (cooldown == null) {
            return Duration.ZERO;
        }
        long left = cooldown.end - this.nanoTime.getAsLong();
        if (left > 0) {
            return Duration.ofNanos(left);
        }
        this.ends.remove(key, cooldown);
        return Duration.ZERO;
    }

    /**
     * Cools a key down for a {@code Retry-After}, as
     * {@link #coolDown(String, Duration, CooldownReason)} does with {@link CooldownReason#RETRY_AFTER}.
     *
     * @param key the provider account
     * @param duration how long; capped at five minutes (as
     *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP} is), nothing when not positive
     * @throws NullPointerException if an argument is {@code null}
     */
    @Override
    public void coolDown(String key, Duration duration) {
        coolDown(key, duration, CooldownReason.RETRY_AFTER);
    }

    /**
     * Cools a key down for a duration from now, unless its cool-down in force ends later; the reason
     * of the one that ends last is kept.
     *
     * @param key the provider account
     * @param duration how long; capped at five minutes (as
     *     {@link dev.inference.retry.Backoff#RETRY_AFTER_CAP} is), nothing when not positive
     * @param reason why
     * @throws NullPointerException if an argument is {@code null}
     */
    @Override
    public void coolDown(String key, Duration duration, CooldownReason reason) {
        Objects.requireNonNull(key, "key must not be null");
        long nanos = Durations.toWaitNanos(Objects.requireNonNull(duration, "duration must not be null"));
        Objects.requireNonNull(reason, "reason must not be null");
        if (nanos == 0) {
            return;
        }
        long end = this.nanoTime.getAsLong() + Math.min(nanos, LONGEST_NANOS);
        // Nanosecond clocks are compared by difference, as they may wrap around.
        this.ends.merge(key, new Cooldown(end, reason),
                (earlier, later) -> (later.end - earlier.end > 0) ? later : earlier);
    }

    @Override
    public Optional<CooldownReason> reason(String key) {
        Cooldown cooldown = this.ends.get(key);
        return (cooldown != null && !remaining(key).isZero()) ? Optional.of(cooldown.reason) : Optional.empty();
    }

    /**
     * Returns the keys cooling down now, with the time each has left, for diagnostics.
     *
     * @return a snapshot, keyed by provider account
     */
    public Map<String, Duration> snapshot() {
        Map<String, Duration> snapshot = new TreeMap<>();
        for (String key : this.ends.keySet()) {
            Duration left = remaining(key);
            if (!left.isZero()) {
                snapshot.put(key, left);
            }
        }
        return snapshot;
    }

    @Override
    public String toString() {
        return "LocalCooldownStore" + snapshot();
    }

    /** A key's cool-down: when it ends, on the store's clock, and why. */
    private record Cooldown(long end, CooldownReason reason) {
    }
}
