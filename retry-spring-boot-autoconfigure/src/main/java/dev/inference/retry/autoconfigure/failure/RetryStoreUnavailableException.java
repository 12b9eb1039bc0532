package dev.inference.retry.autoconfigure.failure;

import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;

/**
 * The cool-down store that {@code inference.retry.cooldown.store} asks for cannot be made: for
 * {@code redis}, Spring Data Redis or the Redis store's module ({@code retry-cooldown-redis}) is not
 * on the class path, or the application has no Lettuce {@code RedisConnectionFactory}.
 *
 * <p>An {@link InvalidRetryPropertyException}, as every wrong property is, about the store's bean
 * {@code inferenceRetryCooldownStore}; its message names no bean:
 * {@code "inference.retry.cooldown.store = redis is invalid: <rule>"}.
 */
public class RetryStoreUnavailableException extends InvalidRetryPropertyException {

    private static final long serialVersionUID = 1L;

    /** The name of the store's bean, which is what cannot be made. */
    private static final String BEAN = "inferenceRetryCooldownStore";

    private static final String PROPERTY = "inference.retry.cooldown.store";

    /**
     * Creates the exception.
     *
     * @param value the store asked for
     * @param rule what it needs and is missing
     * @param action what to do, naming the dependency or property
     */
    public RetryStoreUnavailableException(String value, String rule, String action) {
        super(describe(PROPERTY, value, rule), "CooldownStore", BEAN, PROPERTY, value, rule, action);
    }

    @Override
    public String heading() {
        return "The retry cool-down store cannot be made:";
    }
}
