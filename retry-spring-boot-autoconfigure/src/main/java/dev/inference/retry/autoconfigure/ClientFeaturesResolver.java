package dev.inference.retry.autoconfigure;

import dev.inference.retry.Backoff;
import dev.inference.retry.ConfigException;
import dev.inference.retry.RetryBudget;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the retry budget, the cool-down key and the cool-down's release spread of one wrapped bean from
 * {@link InferenceRetryProperties}: field by field, the bean's entry under {@code inference.retry.clients}
 * over the top level, as the policy is resolved. Both features are off unless configured.
 */
final class ClientFeaturesResolver {

    private static final String PREFIX = "inference.retry.";

    private ClientFeaturesResolver() {
    }

    /**
     * Resolves the budget of a bean, a new bucket for each bean.
     *
     * @param beanName the bean's name
     * @param entry the key of the bean's entry under {@code inference.retry.clients}, or {@code null}
     * @param properties the bound properties
     * @return the bean's budget, or empty when none is configured or the bean is exempt
     * @throws InvalidRetryPropertyException when only one of the two fields is set, or a value is out
     *     of range
     */
    static Optional<RetryBudget> budget(String beanName, @Nullable String entry, InferenceRetryProperties properties) {
        InferenceRetryProperties.@Nullable Client client = (entry != null) ? properties.getClients().get(entry) : null;
        if (client != null && !client.getBudget().isEnabled()) {
            return Optional.empty();
        }
        String clientPrefix = PREFIX + "clients." + ((entry != null) ? entry : beanName) + ".budget.";
        Integer clientMaxTokens = (client != null) ? client.getBudget().getMaxTokens() : null;
        BigDecimal clientTokenRatio = (client != null) ? client.getBudget().getTokenRatio() : null;
        Integer maxTokens = (clientMaxTokens != null) ? clientMaxTokens : properties.getBudget().getMaxTokens();
        BigDecimal tokenRatio = (clientTokenRatio != null) ? clientTokenRatio : properties.getBudget().getTokenRatio();
        String maxTokensProperty = ((clientMaxTokens != null) ? clientPrefix : PREFIX + "budget.") + "max-tokens";
        String tokenRatioProperty = ((clientTokenRatio != null) ? clientPrefix : PREFIX + "budget.") + "token-ratio";
        if (maxTokens == null && tokenRatio == null) {
            return Optional.empty();
        }
        if (maxTokens == null || tokenRatio == null) {
            String missing = (maxTokens == null) ? maxTokensProperty : tokenRatioProperty;
            String set = (maxTokens == null) ? tokenRatioProperty : maxTokensProperty;
            String clientMissing = clientPrefix + ((maxTokens == null) ? "max-tokens" : "token-ratio");
            throw new InvalidRetryPropertyException(beanName, missing, null,
                    "must be set together with " + set + ": a retry budget needs both fields, or neither",
                    "Set " + missing + " (or " + clientMissing + " for bean '" + beanName + "' only), or remove " + set
                            + ".");
        }
        try {
            return Optional.of(RetryBudget.of(maxTokens, tokenRatio));
        }
        catch (ConfigException ex) {
            boolean ofMaxTokens = ex.field().equals("maxTokens");
            throw InvalidRetryPropertyException.invalid(beanName, ofMaxTokens ? maxTokensProperty : tokenRatioProperty,
                    ofMaxTokens ? maxTokens : tokenRatio.toPlainString(), ex.rule());
        }
    }

    /**
     * Resolves the provider account whose cool-down a bean shares.
     *
     * @param beanName the bean's name
     * @param entry the key of the bean's entry under {@code inference.retry.clients}, or {@code null}
     * @param properties the bound properties
     * @return the key set for the bean, or empty for the bean name
     * @throws InvalidRetryPropertyException when a key is set but no store is, or the key is blank
     */
    static Optional<String> cooldownKey(String beanName, @Nullable String entry, InferenceRetryProperties properties) {
        InferenceRetryProperties.@Nullable Client client = (entry != null) ? properties.getClients().get(entry) : null;
        String key = (client != null) ? client.getCooldownKey() : null;
        if (key == null) {
            return Optional.empty();
        }
        String property = PREFIX + "clients." + entry + ".cooldown-key";
        if (properties.getCooldown().getStore() == null) {
            throw new InvalidRetryPropertyException(beanName, property, key,
                    "needs a cool-down store: inference.retry.cooldown.store is not set",
                    "Set inference.retry.cooldown.store to local or redis, or remove " + property + ".");
        }
        if (key.isBlank()) {
            throw InvalidRetryPropertyException.invalid(beanName, property, "'" + key + "'",
                    "must name a provider account, not be blank");
        }
        return Optional.of(key);
    }

    /**
     * Checks the release spread of the cool-downs, which every wrapped bean with a store shares: set, it
     * needs a store, and must lie between zero and the cap of every cool-down.
     *
     * @param beanName the bean being resolved, for the message of a failure
     * @param properties the bound properties
     * @throws InvalidRetryPropertyException when a spread is set but no store is, or it is negative or
     *     longer than the cap of every cool-down
     */
    static void checkCooldownReleaseSpread(String beanName, InferenceRetryProperties properties) {
        Duration spread = properties.getCooldown().getReleaseSpread();
        if (spread == null) {
            return;
        }
        String property = PREFIX + "cooldown.release-spread";
        if (properties.getCooldown().getStore() == null) {
            throw new InvalidRetryPropertyException(beanName, property, spread,
                    "needs a cool-down store: inference.retry.cooldown.store is not set",
                    "Set inference.retry.cooldown.store to local or redis, or remove " + property + ".");
        }
        if (spread.isNegative() || spread.compareTo(Backoff.RETRY_AFTER_CAP) > 0) {
            throw InvalidRetryPropertyException.invalid(beanName, property, spread,
                    "must be zero or positive, and at most " + Backoff.RETRY_AFTER_CAP
                            + ", the longest a cool-down lasts");
        }
    }
}
