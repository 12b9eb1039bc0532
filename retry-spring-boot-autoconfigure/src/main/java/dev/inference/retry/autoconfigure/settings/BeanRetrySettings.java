package dev.inference.retry.autoconfigure.settings;

import dev.inference.retry.Backoff;
import dev.inference.retry.ConfigException;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.Timeouts;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Everything {@code inference.retry.*} says about one retried bean, resolved and validated: an
 * immutable value, so that two resolutions are compared with {@link #equals} and a refresh can swap
 * one for another. Field by field, the bean's entry under {@code inference.retry.clients} wins over
 * the top level; nothing is defaulted that the application did not choose (SPEC §5, §9).
 *
 * <p>{@link #resolve} is the one place a bean's settings are read from the properties: the policy
 * through {@link ClientPolicyResolver}, the retry budget and the cool-down here. Trap: the budget is
 * kept as its two settings, never as a bucket (a {@link RetryBudget} holds tokens, which are state):
 * {@link dev.inference.retry.autoconfigure.RetriedClients} makes the one bucket of each bean.
 *
 * @param beanName the bean's name, which is also its retrier's
 * @param policy its validated policy
 * @param budget its retry budget's settings, or {@code null} when it has none
 * @param cooldownKey the provider account whose cool-down it shares when a store is configured: the
 *     entry's {@code cooldown-key}, or the bean's name
 * @param rateLimitHeaders whether, with a store, rate-limit headers that say a limit is exhausted cool
 *     the key
 * @param cooldownReleaseSpread how long after a cool-down's end the calls it held are spread, zero
 *     for none
 * @param timeouts its attempt, first-token and stream-idle timeouts
 */
public record BeanRetrySettings(String beanName, Policy policy, @Nullable Budget budget, String cooldownKey,
        boolean rateLimitHeaders, Duration cooldownReleaseSpread, Timeouts timeouts) {

    private static final String PREFIX = "inference.retry.";

    private static final String NEEDS_A_STORE = "needs a cool-down store: inference.retry.cooldown.store is not set";

    /**
     * Checks the settings.
     *
     * @param beanName the bean's name
     * @param policy its validated policy
     * @param budget its retry budget's settings, or {@code null} when it has none
     * @param cooldownKey the provider account whose cool-down it shares
     * @param rateLimitHeaders whether, with a store, exhausted rate limits cool the key
     * @param cooldownReleaseSpread how long after a cool-down's end the calls it held are spread
     * @param timeouts its timeouts
     * @throws NullPointerException if a component other than {@code budget} is {@code null}
     */
    public BeanRetrySettings {
        Objects.requireNonNull(beanName, "beanName must not be null");
        Objects.requireNonNull(policy, "policy must not be null");
        Objects.requireNonNull(cooldownKey, "cooldownKey must not be null");
        Objects.requireNonNull(cooldownReleaseSpread, "cooldownReleaseSpread must not be null");
        Objects.requireNonNull(timeouts, "timeouts must not be null");
    }

    /**
     * Resolves the settings of a bean to retry.
     *
     * @param beanName the bean's name
     * @param entry the key of the entry under {@code inference.retry.clients} that configures the bean,
     *     as it was bound, or {@code null} when none does
     * @param properties the bound properties
     * @return the bean's settings
     * @throws InvalidRetryPropertyException naming the bean and the property to fix, about an
     *     {@code InferenceClient} bean (see {@link InvalidRetryPropertyException#ofKind})
     */
    public static BeanRetrySettings resolve(String beanName, @Nullable String entry, InferenceRetryProperties properties) {
        Policy policy = ClientPolicyResolver.resolve(beanName, entry, properties);
        InferenceRetryProperties.@Nullable Client client = (entry != null) ? properties.getClients().get(entry) : null;
        String clientPrefix = PREFIX + "clients." + ((entry != null) ? entry : beanName) + ".";
        Budget budget = budget(beanName, clientPrefix, client, properties);
        String cooldownKey = cooldownKey(beanName, clientPrefix, client, properties);
        Duration spread = releaseSpread(beanName, properties);
        boolean rateLimitHeaders = properties.getCooldown().isRateLimitHeaders();
        Timeouts timeouts = timeouts(beanName, clientPrefix, client, properties);
        return new BeanRetrySettings(beanName, policy, budget, cooldownKey, rateLimitHeaders, spread, timeouts);
    }

    /** Merges the timeouts field by field, the bean's entry over the top level, each off unless set. */
    private static Timeouts timeouts(String beanName, String clientPrefix,
            InferenceRetryProperties.@Nullable Client client, InferenceRetryProperties properties) {
        Map<Timeouts.Field, String> names = new EnumMap<>(Timeouts.Field.class);
        Duration attempt = timeout(client, properties, RetryPolicyProperties::getAttemptTimeout, clientPrefix,
                "attempt-timeout", Timeouts.Field.ATTEMPT, names);
        Duration firstToken = timeout(client, properties, RetryPolicyProperties::getFirstTokenTimeout, clientPrefix,
                "first-token-timeout", Timeouts.Field.FIRST_TOKEN, names);
        Duration streamIdle = timeout(client, properties, RetryPolicyProperties::getStreamIdleTimeout, clientPrefix,
                "stream-idle-timeout", Timeouts.Field.STREAM_IDLE, names);
        try {
            return Timeouts.of(attempt, firstToken, streamIdle, (field) -> Objects.requireNonNull(names.get(field)));
        }
        catch (ConfigException ex) {
            throw InvalidRetryPropertyException.invalid(beanName, ex.field(), ex.value().orElseThrow(), ex.rule());
        }
    }

    private static @Nullable Duration timeout(InferenceRetryProperties.@Nullable Client client,
            InferenceRetryProperties properties, Function<RetryPolicyProperties, @Nullable Duration> field,
            String clientPrefix, String name, Timeouts.Field key, Map<Timeouts.Field, String> names) {
        Duration own = (client != null) ? field.apply(client) : null;
        names.put(key, ((own != null) ? clientPrefix : PREFIX) + name);
        return (own != null) ? own : field.apply(properties);
    }

    private static @Nullable Budget budget(String beanName, String clientPrefix,
            InferenceRetryProperties.@Nullable Client client, InferenceRetryProperties properties) {
        if (client != null && !client.getBudget().isEnabled()) {
            return null;
        }
        String prefix = clientPrefix + "budget.";
        Integer clientMaxTokens = (client != null) ? client.getBudget().getMaxTokens() : null;
        BigDecimal clientTokenRatio = (client != null) ? client.getBudget().getTokenRatio() : null;
        Integer maxTokens = (clientMaxTokens != null) ? clientMaxTokens : properties.getBudget().getMaxTokens();
        BigDecimal tokenRatio = (clientTokenRatio != null) ? clientTokenRatio : properties.getBudget().getTokenRatio();
        String maxTokensProperty = ((clientMaxTokens != null) ? prefix : PREFIX + "budget.") + "max-tokens";
        String tokenRatioProperty = ((clientTokenRatio != null) ? prefix : PREFIX + "budget.") + "token-ratio";
        if (maxTokens == null && tokenRatio == null) {
            return null;
        }
        if (maxTokens == null || tokenRatio == null) {
            String missing = (maxTokens == null) ? maxTokensProperty : tokenRatioProperty;
            String set = (maxTokens == null) ? tokenRatioProperty : maxTokensProperty;
            String clientMissing = prefix + ((maxTokens == null) ? "max-tokens" : "token-ratio");
            throw new InvalidRetryPropertyException(beanName, missing, null,
                    "must be set together with " + set + ": a retry budget needs both fields, or neither",
                    "Set " + missing + " (or " + clientMissing + " for bean '" + beanName + "' only), or remove " + set
                            + ".");
        }
        try {
            RetryBudget valid = RetryBudget.of(maxTokens, tokenRatio);
            return new Budget(valid.maxTokens(), valid.tokenRatio());
        }
        catch (ConfigException ex) {
            boolean ofMaxTokens = ex.field().equals("maxTokens");
            throw InvalidRetryPropertyException.invalid(beanName, ofMaxTokens ? maxTokensProperty : tokenRatioProperty,
                    ofMaxTokens ? maxTokens : tokenRatio.toPlainString(), ex.rule());
        }
    }

    private static String cooldownKey(String beanName, String clientPrefix,
            InferenceRetryProperties.@Nullable Client client, InferenceRetryProperties properties) {
        String key = (client != null) ? client.getCooldownKey() : null;
        if (key == null) {
            return beanName;
        }
        String property = clientPrefix + "cooldown-key";
        if (properties.getCooldown().getStore() == null) {
            throw new InvalidRetryPropertyException(beanName, property, key, NEEDS_A_STORE,
                    "Set inference.retry.cooldown.store to local or redis, or remove " + property + ".");
        }
        if (key.isBlank()) {
            throw InvalidRetryPropertyException.invalid(beanName, property, "'" + key + "'",
                    "must name a provider account, not be blank");
        }
        return key;
    }

    /** The release spread, which every bean with a store shares; checked for each, reported for the first. */
    private static Duration releaseSpread(String beanName, InferenceRetryProperties properties) {
        Duration spread = properties.getCooldown().getReleaseSpread();
        if (spread == null) {
            return Duration.ZERO;
        }
        String property = PREFIX + "cooldown.release-spread";
        if (properties.getCooldown().getStore() == null) {
            throw new InvalidRetryPropertyException(beanName, property, spread, NEEDS_A_STORE,
                    "Set inference.retry.cooldown.store to local or redis, or remove " + property + ".");
        }
        if (spread.isNegative() || spread.compareTo(Backoff.RETRY_AFTER_CAP) > 0) {
            throw InvalidRetryPropertyException.invalid(beanName, property, spread,
                    "must be zero or positive, and at most " + Backoff.RETRY_AFTER_CAP
                            + ", the longest a cool-down lasts");
        }
        return spread;
    }

    /**
     * The settings of a retry budget (SPEC §9), valid by construction through {@link #resolve}.
     *
     * @param maxTokens the bucket's size
     * @param tokenRatio the tokens a success returns, without trailing zeros, so that {@code 0.1} and
     *     {@code 0.10} are equal settings
     */
    public record Budget(int maxTokens, BigDecimal tokenRatio) {

        /**
         * Strips the ratio's trailing zeros.
         *
         * @param maxTokens the bucket's size
         * @param tokenRatio the tokens a success returns
         *
         * @throws NullPointerException if {@code tokenRatio} is {@code null}
         */
        public Budget {
            tokenRatio = tokenRatio.stripTrailingZeros();
        }

        /**
         * Makes a full bucket of these settings.
         *
         * @return a new bucket
         */
        public RetryBudget newBucket() {
            return RetryBudget.of(this.maxTokens, this.tokenRatio);
        }
    }
}
