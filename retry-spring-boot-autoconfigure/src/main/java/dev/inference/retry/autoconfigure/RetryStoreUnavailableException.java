package dev.inference.retry.autoconfigure;

import dev.inference.retry.ConfigException;
import java.util.Objects;

/**
 * The cool-down store that {@code inference.retry.cooldown.store} asks for cannot be made: for
 * {@code redis}, Spring Data Redis or the Redis store's module ({@code retry-cooldown-redis}) is not
 * on the class path, or the application has no Lettuce {@code RedisConnectionFactory}.
 */
public class RetryStoreUnavailableException extends ConfigException {

    private static final long serialVersionUID = 1L;

    /** What to do, naming the dependency or property. */
    private final String action;

    /**
     * Creates the exception.
     *
     * @param value the store asked for
     * @param rule what it needs and is missing
     * @param action what to do, naming the dependency or property
     */
    public RetryStoreUnavailableException(String value, String rule, String action) {
        super("inference.retry.cooldown.store", value, rule);
        this.action = Objects.requireNonNull(action, "action must not be null");
    }

    /**
     * Returns what to do to fix the configuration.
     *
     * @return the action, naming the dependency or property
     */
    public String action() {
        return this.action;
    }
}
