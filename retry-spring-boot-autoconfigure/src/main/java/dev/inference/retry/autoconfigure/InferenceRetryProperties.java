package dev.inference.retry.autoconfigure;

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
 */
@ConfigurationProperties("inference.retry")
public class InferenceRetryProperties {

    /**
     * Whether to wrap InferenceClient beans in a retrying client and validate their policies.
     */
    private boolean enabled = true;

    /**
     * Number of retries that wait stable-delay before the wait starts doubling.
     */
    private @Nullable Integer stableRetries;

    /**
     * Wait after each of the first stable-retries failed attempts, and the base of the doubling
     * waits after them.
     */
    private @Nullable Duration stableDelay;

    /**
     * Maximum number of attempts per call, the first one included.
     */
    private @Nullable Integer maxAttempts;

    /**
     * Maximum wait between two attempts, before jitter.
     */
    private @Nullable Duration maxDelay;

    /**
     * Per-client settings, keyed by InferenceClient bean name: enabled, stable-retries,
     * stable-delay, max-attempts and max-delay, each overriding the top-level value.
     */
    private final Map<String, Client> clients = new LinkedHashMap<>();

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
     * Returns the top-level number of stable retries.
     *
     * @return the value, or {@code null} when not set
     */
    public @Nullable Integer getStableRetries() {
        return this.stableRetries;
    }

    /**
     * Sets the top-level number of stable retries.
     *
     * @param stableRetries the value, or {@code null} to unset it
     */
    public void setStableRetries(@Nullable Integer stableRetries) {
        this.stableRetries = stableRetries;
    }

    /**
     * Returns the top-level stable delay.
     *
     * @return the value, or {@code null} when not set
     */
    public @Nullable Duration getStableDelay() {
        return this.stableDelay;
    }

    /**
     * Sets the top-level stable delay.
     *
     * @param stableDelay the value, or {@code null} to unset it
     */
    public void setStableDelay(@Nullable Duration stableDelay) {
        this.stableDelay = stableDelay;
    }

    /**
     * Returns the top-level maximum number of attempts.
     *
     * @return the value, or {@code null} when not set
     */
    public @Nullable Integer getMaxAttempts() {
        return this.maxAttempts;
    }

    /**
     * Sets the top-level maximum number of attempts.
     *
     * @param maxAttempts the value, or {@code null} to unset it
     */
    public void setMaxAttempts(@Nullable Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /**
     * Returns the top-level maximum delay.
     *
     * @return the value, or {@code null} when not set
     */
    public @Nullable Duration getMaxDelay() {
        return this.maxDelay;
    }

    /**
     * Sets the top-level maximum delay.
     *
     * @param maxDelay the value, or {@code null} to unset it
     */
    public void setMaxDelay(@Nullable Duration maxDelay) {
        this.maxDelay = maxDelay;
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
     * Settings of one {@code InferenceClient} bean, under {@code inference.retry.clients.<bean-name>}.
     * Each policy field that is set here overrides the top-level one for this bean only.
     */
    public static class Client {

        /**
         * Whether to wrap this InferenceClient bean in a retrying client.
         */
        private boolean enabled = true;

        /**
         * Number of retries that wait stable-delay before the wait starts doubling, for this client.
         */
        private @Nullable Integer stableRetries;

        /**
         * Wait after each of the first stable-retries failed attempts, for this client.
         */
        private @Nullable Duration stableDelay;

        /**
         * Maximum number of attempts per call, the first one included, for this client.
         */
        private @Nullable Integer maxAttempts;

        /**
         * Maximum wait between two attempts, before jitter, for this client.
         */
        private @Nullable Duration maxDelay;

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

        /**
         * Returns this client's number of stable retries.
         *
         * @return the value, or {@code null} when the top-level one applies
         */
        public @Nullable Integer getStableRetries() {
            return this.stableRetries;
        }

        /**
         * Sets this client's number of stable retries.
         *
         * @param stableRetries the value, or {@code null} for the top-level one
         */
        public void setStableRetries(@Nullable Integer stableRetries) {
            this.stableRetries = stableRetries;
        }

        /**
         * Returns this client's stable delay.
         *
         * @return the value, or {@code null} when the top-level one applies
         */
        public @Nullable Duration getStableDelay() {
            return this.stableDelay;
        }

        /**
         * Sets this client's stable delay.
         *
         * @param stableDelay the value, or {@code null} for the top-level one
         */
        public void setStableDelay(@Nullable Duration stableDelay) {
            this.stableDelay = stableDelay;
        }

        /**
         * Returns this client's maximum number of attempts.
         *
         * @return the value, or {@code null} when the top-level one applies
         */
        public @Nullable Integer getMaxAttempts() {
            return this.maxAttempts;
        }

        /**
         * Sets this client's maximum number of attempts.
         *
         * @param maxAttempts the value, or {@code null} for the top-level one
         */
        public void setMaxAttempts(@Nullable Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        /**
         * Returns this client's maximum delay.
         *
         * @return the value, or {@code null} when the top-level one applies
         */
        public @Nullable Duration getMaxDelay() {
            return this.maxDelay;
        }

        /**
         * Sets this client's maximum delay.
         *
         * @param maxDelay the value, or {@code null} for the top-level one
         */
        public void setMaxDelay(@Nullable Duration maxDelay) {
            this.maxDelay = maxDelay;
        }
    }
}
