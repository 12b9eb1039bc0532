package dev.inference.retry.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
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
     * Per-client settings, keyed by InferenceClient bean name: enabled, stable-retries,
     * stable-delay, max-attempts and max-delay, each overriding the top-level value.
     */
    private final Map<String, Client> clients = new LinkedHashMap<>();

    private final Observations observations = new Observations();

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
     * Returns the settings of the observations of attempts.
     *
     * @return the observation settings
     */
    public Observations getObservations() {
        return this.observations;
    }

    /**
     * Settings of the Micrometer observations of attempts, under {@code inference.retry.observations}.
     */
    public static class Observations {

        /**
         * Whether to observe each attempt as an Observation named inference.retry.attempt (one span
         * per attempt with Micrometer Tracing). Off unless set: with the actuator it adds a timer
         * per attempt to every call.
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
     * Settings of one {@code InferenceClient} bean, under {@code inference.retry.clients.<bean-name>}.
     * Each policy field that is set here overrides the top-level one for this bean only.
     */
    public static class Client extends RetryPolicyProperties {

        /**
         * Whether to wrap this InferenceClient bean in a retrying client.
         */
        private boolean enabled = true;

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
