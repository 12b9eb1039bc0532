package dev.inference.retry.autoconfigure.settings;

import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for retrying {@link dev.inference.client.InferenceClient} beans, under
 * {@code inference.retry}.
 *
 * <p>The four policy fields have no defaults: every retried bean must get each of them, from its
 * entry under {@code clients} or from the top level. Field by field, a client's value wins over the
 * top-level one.
 *
 * <p>A key under {@code inference.retry} that names none of these properties, such as a misspelt
 * {@code inference.retry.clients.openai.max-atempts}, fails binding instead of being ignored: ignored,
 * it would leave the value it was meant to override silently in force.
 */
@ConfigurationProperties(prefix = "inference.retry", ignoreUnknownFields = false)
public class InferenceRetryProperties extends RetryPolicyProperties {

    /**
     * Whether to wrap InferenceClient beans in a retrying client and validate their policies.
     */
    private boolean enabled = true;

    /**
     * Per-client settings, keyed by the name of an InferenceClient or Spring AI ChatModel bean:
     * enabled, stable-retries, stable-delay, max-attempts, max-delay, attempt-timeout,
     * first-token-timeout and stream-idle-timeout, each overriding the top-level value.
     */
    private final Map<String, Client> clients = new LinkedHashMap<>();

    /**
     * Observations of attempts.
     */
    private final Observations observations = new Observations();

    /**
     * Retry of Spring AI models.
     */
    private final SpringAi springAi = new SpringAi();

    /**
     * Retry budget of every retried bean whose entry does not say otherwise.
     */
    private final Budget budget = new Budget();

    /**
     * Cool-downs that providers ask for, shared by the retried beans.
     */
    private final Cooldown cooldown = new Cooldown();

    /**
     * Fallback chains, keyed by the chain's bean name: members (the bean names, in order, at least
     * two, all InferenceClient or all Spring AI ChatModel beans), primary (whether the chain is the
     * primary bean of its type), skip-after and skip-for (after that many calls in a row that fell
     * over from a member, skip it for that long; both or neither) and models.<member> (a member's
     * own model name).
     */
    private final Map<String, FallbackChainProperties> fallbacks = new LinkedHashMap<>();

    /**
     * Returns whether {@code InferenceClient} beans are wrapped.
     *
     * @return {@code true} unless retrying is switched off
     */
    public boolean isEnabled() {
        return this.enabled;
    }

    /**
     * Sets whether {@code InferenceClient} beans are wrapped.
     *
     * @param enabled {@code false} to wrap nothing and validate nothing
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the per-client settings, keyed by bean name. The map is live, for the binder.
     *
     * @return the per-client settings
     */
    public Map<String, Client> getClients() {
        return this.clients;
    }

    /**
     * Returns the retry budget every wrapped bean gets, unless its own entry says otherwise.
     *
     * @return the top-level budget settings
     */
    public Budget getBudget() {
        return this.budget;
    }

    /**
     * Returns the fallback chains, keyed by the chain's bean name. The map is live, for the binder.
     *
     * @return the chains' settings
     */
    public Map<String, FallbackChainProperties> getFallbacks() {
        return this.fallbacks;
    }

    /**
     * Returns the settings of the cool-downs shared by the wrapped beans.
     *
     * @return the cool-down settings
     */
    public Cooldown getCooldown() {
        return this.cooldown;
    }

    /**
     * Returns the settings of the observations of attempts.
     *
     * @return the observation settings
     */
    public Observations getObservations() {
        return this.observations;
    }

    /**
     * Returns the settings of the retry of Spring AI models.
     *
     * @return the Spring AI settings
     */
    public SpringAi getSpringAi() {
        return this.springAi;
    }

    /**
     * Settings of the retry of Spring AI chat models, under {@code inference.retry.spring-ai}.
     */
    public static class SpringAi {

        /**
         * Whether the provider exchanges of Spring AI models are retried beneath their beans; false
         * leaves every Spring AI model as it is, its own retries included.
         */
        private boolean enabled = true;

        /**
         * Returns whether Spring AI chat models are retried.
         *
         * @return {@code true} unless switched off
         */
        public boolean isEnabled() {
            return this.enabled;
        }

        /**
         * Sets whether Spring AI chat models are retried.
         *
         * @param enabled {@code false} to leave every Spring AI model as it is
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * Settings of the Micrometer observations of attempts, under {@code inference.retry.observations}.
     */
    public static class Observations {

        /**
         * Whether to observe each attempt as an Observation named inference.retry.attempt (one span
         * per attempt with Micrometer Tracing); with the actuator, that adds a timer per attempt to
         * every call.
         */
        private boolean enabled;

        /**
         * Returns whether attempts are observed.
         *
         * @return {@code true} when each attempt is an observation
         */
        public boolean isEnabled() {
            return this.enabled;
        }

        /**
         * Sets whether attempts are observed.
         *
         * @param enabled {@code true} to observe each attempt
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * The retry budget of a bean: gRPC's retry throttling, a token bucket per bean. Both fields must
     * be set, or neither (no budget); this is checked after a bean's values are merged over the
     * top-level ones.
     */
    public static class Budget {

        /**
         * Size of each retried bean's token bucket, from 1 to 1000: a retryable failure takes a
         * token, and a retry is made only while more than half of the bucket is left.
         */
        private @Nullable Integer maxTokens;

        /**
         * Tokens a successful attempt returns to the bucket, in (0, 1] with at most 3 decimals.
         */
        private @Nullable BigDecimal tokenRatio;

        /**
         * Returns the bucket size.
         *
         * @return the size, or {@code null} when not set here
         */
        public @Nullable Integer getMaxTokens() {
            return this.maxTokens;
        }

        /**
         * Sets the bucket size.
         *
         * @param maxTokens the size, or {@code null}
         */
        public void setMaxTokens(@Nullable Integer maxTokens) {
            this.maxTokens = maxTokens;
        }

        /**
         * Returns the tokens a success returns.
         *
         * @return the ratio, or {@code null} when not set here
         */
        public @Nullable BigDecimal getTokenRatio() {
            return this.tokenRatio;
        }

        /**
         * Sets the tokens a success returns.
         *
         * @param tokenRatio the ratio, or {@code null}
         */
        public void setTokenRatio(@Nullable BigDecimal tokenRatio) {
            this.tokenRatio = tokenRatio;
        }
    }

    /**
     * The retry budget settings of one bean, over the top-level ones.
     */
    public static class ClientBudget extends Budget {

        /**
         * Whether this bean has a retry budget; false exempts it from the top-level one.
         */
        private boolean enabled = true;

        /**
         * Returns whether this bean has a budget.
         *
         * @return {@code false} when the bean is exempt
         */
        public boolean isEnabled() {
            return this.enabled;
        }

        /**
         * Sets whether this bean has a budget.
         *
         * @param enabled {@code false} to exempt the bean
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * Where the cool-downs that providers ask for, with Retry-After or their rate-limit headers, are
     * shared.
     */
    public static class Cooldown {

        /**
         * Where cool-downs are kept: local (shared by the retried beans of this application context)
         * or redis (shared by every instance through the application's Redis).
         */
        private @Nullable CooldownStoreType store;

        /**
         * Prefix of the Redis keys and channel, so that applications sharing a Redis keep apart.
         */
        private @Nullable String namespace;

        /**
         * Whether a response whose rate-limit headers say that no requests or no tokens remain cools
         * its bean's key until the reset, as a Retry-After does; applies only with a store.
         */
        private boolean rateLimitHeaders = true;

        /**
         * How long after a cool-down's end the calls it held are spread, each making its attempt at a
         * random moment within it, so that a queue of calls does not reach the provider at once; at
         * most 5m, and applies only with a store.
         */
        private @Nullable Duration releaseSpread;

        /**
         * Returns where cool-downs are kept.
         *
         * @return the store, or {@code null} when cool-downs are not shared
         */
        public @Nullable CooldownStoreType getStore() {
            return this.store;
        }

        /**
         * Sets where cool-downs are kept.
         *
         * @param store the store, or {@code null} for none
         */
        public void setStore(@Nullable CooldownStoreType store) {
            this.store = store;
        }

        /**
         * Returns the prefix of the Redis keys.
         *
         * @return the namespace, or {@code null} for {@code spring.application.name}, or
         *     {@code "default"} when that is not set either
         */
        public @Nullable String getNamespace() {
            return this.namespace;
        }

        /**
         * Sets the prefix of the Redis keys.
         *
         * @param namespace the namespace, or {@code null} for the default
         */
        public void setNamespace(@Nullable String namespace) {
            this.namespace = namespace;
        }

        /**
         * Returns whether the providers' rate-limit headers cool a key down.
         *
         * @return {@code true} unless switched off
         */
        public boolean isRateLimitHeaders() {
            return this.rateLimitHeaders;
        }

        /**
         * Sets whether the providers' rate-limit headers cool a key down.
         *
         * @param rateLimitHeaders {@code false} to cool keys for Retry-After only
         */
        public void setRateLimitHeaders(boolean rateLimitHeaders) {
            this.rateLimitHeaders = rateLimitHeaders;
        }

        /**
         * Returns how long after a cool-down's end the calls it held are spread.
         *
         * @return the spread, or {@code null} when every call held makes its attempt at the end
         */
        public @Nullable Duration getReleaseSpread() {
            return this.releaseSpread;
        }

        /**
         * Sets how long after a cool-down's end the calls it held are spread.
         *
         * @param releaseSpread the spread, or {@code null} for none
         */
        public void setReleaseSpread(@Nullable Duration releaseSpread) {
            this.releaseSpread = releaseSpread;
        }
    }

    /**
     * Where cool-downs are kept.
     */
    public enum CooldownStoreType {

        /** In memory, shared by the wrapped beans of one application context. */
        LOCAL,

        /** In the application's Redis, shared by every instance that uses the same namespace. */
        REDIS
    }

    /**
     * Settings of one retried bean, under {@code inference.retry.clients.<bean-name>}. Each field that
     * is set here overrides the top-level one for this bean only.
     */
    public static class Client extends RetryPolicyProperties {

        /**
         * Whether to retry this bean.
         */
        private boolean enabled = true;

        /**
         * Retry budget of this bean, over the top-level one.
         */
        private final ClientBudget budget = new ClientBudget();

        /**
         * Provider account this bean calls: beans and instances with the same key share a
         * cool-down; needs inference.retry.cooldown.store.
         */
        private @Nullable String cooldownKey;

        /**
         * Returns this bean's retry budget settings.
         *
         * @return the budget settings, over the top-level ones
         */
        public ClientBudget getBudget() {
            return this.budget;
        }

        /**
         * Returns the provider account whose cool-down this bean shares.
         *
         * @return the key, or {@code null} for the bean name
         */
        public @Nullable String getCooldownKey() {
            return this.cooldownKey;
        }

        /**
         * Sets the provider account whose cool-down this bean shares.
         *
         * @param cooldownKey the key, or {@code null} for the bean name
         */
        public void setCooldownKey(@Nullable String cooldownKey) {
            this.cooldownKey = cooldownKey;
        }

        /**
         * Returns whether this bean is wrapped.
         *
         * @return {@code true} unless this bean is excluded
         */
        public boolean isEnabled() {
            return this.enabled;
        }

        /**
         * Sets whether this bean is wrapped.
         *
         * @param enabled {@code false} to leave the bean as it is
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
