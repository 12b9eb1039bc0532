package dev.inference.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The immutable retry policy of a client: how many attempts a call may make and how long to wait
 * between them.
 *
 * <p>A call makes at most {@code maxAttempts} attempts, the first included. After each of the first
 * {@code stableRetries} failed attempts it waits {@code stableDelay}; after that the wait doubles,
 * starting from twice {@code stableDelay}, and never exceeds {@code maxDelay} (see
 * {@link Backoff}). Every field must be given: a policy is valid when {@code maxAttempts >= 1},
 * {@code 0 <= stableRetries < maxAttempts}, {@code stableDelay} is positive and
 * {@code maxDelay >= stableDelay}. An invalid policy cannot be constructed, so the all-zero policy
 * does not exist and there are no defaults.
 *
 * @param stableRetries how many retries wait {@code stableDelay} before the exponential leg starts
 * @param stableDelay the wait of the stable leg, and the base of the exponential one
 * @param maxAttempts the most attempts a call makes, the first included
 * @param maxDelay the cap on any scheduled wait before jitter
 */
public record Policy(int stableRetries, Duration stableDelay, int maxAttempts, Duration maxDelay) {

    /**
     * Validates the policy.
     *
     * @param stableRetries how many retries wait {@code stableDelay} before the exponential leg starts
     * @param stableDelay the wait of the stable leg, and the base of the exponential one
     * @param maxAttempts the most attempts a call makes, the first included
     * @param maxDelay the cap on any scheduled wait before jitter
     * @throws ConfigException naming the first field that breaks a rule (by its record component
     *     name), its value and the rule
     */
    public Policy(int stableRetries, @Nullable Duration stableDelay, int maxAttempts, @Nullable Duration maxDelay) {
        validate(stableRetries, stableDelay, maxAttempts, maxDelay, Field::component);
        this.stableRetries = stableRetries;
        this.stableDelay = Objects.requireNonNull(stableDelay, "validated above");
        this.maxAttempts = maxAttempts;
        this.maxDelay = Objects.requireNonNull(maxDelay, "validated above");
    }

    /**
     * Creates a policy from values read from a configuration whose names for the fields are not the
     * record's: a {@link ConfigException} then names each field, in {@link ConfigException#field()}
     * and in its rule, as that configuration does.
     *
     * @param stableRetries how many retries wait {@code stableDelay}
     * @param stableDelay the wait of the stable leg, or {@code null} when it is missing
     * @param maxAttempts the most attempts a call makes, the first included
     * @param maxDelay the cap on any scheduled wait before jitter, or {@code null} when it is missing
     * @param names the name of each field in the configuration, such as a property name
     * @return the valid policy
     * @throws ConfigException naming the first field that breaks a rule (by {@code names}), its value
     *     and the rule
     * @throws NullPointerException if {@code names} is {@code null} or returns {@code null}
     */
    public static Policy of(int stableRetries, @Nullable Duration stableDelay, int maxAttempts,
            @Nullable Duration maxDelay, Function<Field, String> names) {
        Objects.requireNonNull(names, "names must not be null");
        validate(stableRetries, stableDelay, maxAttempts, maxDelay, names);
        return new Policy(stableRetries, stableDelay, maxAttempts, maxDelay);
    }

    private static void validate(int stableRetries, @Nullable Duration stableDelay, int maxAttempts,
            @Nullable Duration maxDelay, Function<Field, String> names) {
        if (maxAttempts < 1) {
            throw invalid(names, Field.MAX_ATTEMPTS, maxAttempts, "must be at least 1");
        }
        if (stableRetries < 0) {
            throw invalid(names, Field.STABLE_RETRIES, stableRetries, "must not be negative");
        }
        if (stableRetries >= maxAttempts) {
            throw invalid(names, Field.STABLE_RETRIES, stableRetries,
                    "must be less than " + name(names, Field.MAX_ATTEMPTS) + " (" + maxAttempts + ")");
        }
        if (stableDelay == null || stableDelay.isNegative() || stableDelay.isZero()) {
            throw invalid(names, Field.STABLE_DELAY, stableDelay, "must be a positive duration");
        }
        if (maxDelay == null) {
            throw invalid(names, Field.MAX_DELAY, null,
                    "must be a duration of at least " + name(names, Field.STABLE_DELAY) + " (" + stableDelay + ")");
        }
        if (maxDelay.compareTo(stableDelay) < 0) {
            throw invalid(names, Field.MAX_DELAY, maxDelay,
                    "must be at least " + name(names, Field.STABLE_DELAY) + " (" + stableDelay + ")");
        }
    }

    private static ConfigException invalid(Function<Field, String> names, Field field, @Nullable Object value,
            String rule) {
        return new ConfigException(name(names, field), value, rule);
    }

    private static String name(Function<Field, String> names, Field field) {
        return Objects.requireNonNull(names.apply(field), () -> "names returned null for " + field);
    }

    /**
     * The fields of a policy, in the order of the record's components: the one list that
     * configurations map their own names onto.
     */
    public enum Field {

        /** {@link Policy#stableRetries()}. */
        STABLE_RETRIES("stableRetries"),

        /** {@link Policy#stableDelay()}. */
        STABLE_DELAY("stableDelay"),

        /** {@link Policy#maxAttempts()}. */
        MAX_ATTEMPTS("maxAttempts"),

        /** {@link Policy#maxDelay()}. */
        MAX_DELAY("maxDelay");

        private final String component;

        Field(String component) {
            this.component = component;
        }

        /**
         * Returns the name of the record component.
         *
         * @return the component name, such as {@code "maxAttempts"}
         */
        public String component() {
            return this.component;
        }
    }
}
