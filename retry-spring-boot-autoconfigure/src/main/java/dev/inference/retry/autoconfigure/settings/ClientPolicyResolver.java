package dev.inference.retry.autoconfigure.settings;

import dev.inference.client.Durations;
import dev.inference.retry.ConfigException;
import dev.inference.retry.Policy;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the {@link Policy} of one {@code InferenceClient} bean from {@link InferenceRetryProperties}:
 * field by field, the bean's entry under {@code inference.retry.clients} over the top-level value.
 * A field set in neither place is an error, never a default; so is a value the {@link Policy}
 * refuses, or a delay too long to be waited out. When several fields are missing, the exception
 * thrown is the first one's, and the others' are attached to it as suppressed, so that one report
 * names them all.
 */
final class ClientPolicyResolver {

    private static final String PREFIX = "inference.retry.";

    private ClientPolicyResolver() {
    }

    /**
     * Resolves the policy of a bean.
     *
     * @param beanName the name of the {@code InferenceClient} bean
     * @param entry the name of the entry under {@code inference.retry.clients} that configures the
     *     bean, as it was bound, or {@code null} when none does
     * @param properties the bound properties
     * @return the bean's valid policy
     * @throws InvalidRetryPropertyException naming the bean and the property to fix when a field is
     *     missing (the other missing fields' exceptions suppressed in it) or a value is invalid
     */
    static Policy resolve(String beanName, @Nullable String entry, InferenceRetryProperties properties) {
        InferenceRetryProperties.@Nullable Client client = (entry != null) ? properties.getClients().get(entry) : null;
        String clientName = (entry != null) ? entry : beanName;
        Field<Integer> stableRetries = Field.of(beanName, clientName, Policy.Field.STABLE_RETRIES, properties, client,
                RetryPolicyProperties::getStableRetries);
        Field<Duration> stableDelay = Field.of(beanName, clientName, Policy.Field.STABLE_DELAY, properties, client,
                RetryPolicyProperties::getStableDelay);
        Field<Integer> maxAttempts = Field.of(beanName, clientName, Policy.Field.MAX_ATTEMPTS, properties, client,
                RetryPolicyProperties::getMaxAttempts);
        Field<Duration> maxDelay = Field.of(beanName, clientName, Policy.Field.MAX_DELAY, properties, client,
                RetryPolicyProperties::getMaxDelay);
        Map<Policy.Field, Field<?>> fields = new EnumMap<>(Policy.Field.class);
        InvalidRetryPropertyException missing = null;
        for (Field<?> field : List.of(stableRetries, stableDelay, maxAttempts, maxDelay)) {
            fields.put(field.field, field);
            if (field.value == null) {
                // Every missing field at once, the first thrown and the others suppressed: one failed start, not four.
                InvalidRetryPropertyException unset = field.missing();
                if (missing == null) {
                    missing = unset;
                }
                else {
                    missing.addSuppressed(unset);
                }
            }
        }
        if (missing != null) {
            throw missing;
        }
        waitable(beanName, stableDelay);
        waitable(beanName, maxDelay);
        try {
            return Policy.of(stableRetries.require(), stableDelay.require(), maxAttempts.require(), maxDelay.require(),
                    (field) -> Objects.requireNonNull(fields.get(field), "every field is in the map").property);
        }
        catch (ConfigException ex) {
            // Policy.of named the property in the field and the rule; every value is set by now.
            throw InvalidRetryPropertyException.invalid(beanName, ex.field(), ex.value().orElseThrow(() -> ex),
                    ex.rule());
        }
    }

    private static void waitable(String beanName, Field<Duration> delay) {
        if (delay.require().compareTo(Durations.LONGEST_WAIT) > 0) {
            throw InvalidRetryPropertyException.invalid(beanName, delay.property, delay.require(),
                    "must be at most " + Durations.LONGEST_WAIT + " (the longest wait counted in nanoseconds)");
        }
    }

    /** One policy field of one bean: its value and the full name of the property it came from. */
    private static final class Field<T> {

        private final String beanName;

        /** The {@link Policy} field this field becomes. */
        private final Policy.Field field;

        /** The property the value came from, or the top-level property to set when missing. */
        private final String property;

        private final String clientProperty;

        private final @Nullable T value;

        private Field(String beanName, Policy.Field field, String property, String clientProperty, @Nullable T value) {
            this.beanName = beanName;
            this.field = field;
            this.property = property;
            this.clientProperty = clientProperty;
            this.value = value;
        }

        static <T> Field<T> of(String beanName, String clientName, Policy.Field field,
                InferenceRetryProperties properties, InferenceRetryProperties.@Nullable Client client,
                Function<RetryPolicyProperties, @Nullable T> getter) {
            String name = RetryPolicyProperties.PROPERTY_NAMES.get(field);
            String clientProperty = PREFIX + "clients." + clientName + "." + name;
            T overridden = (client != null) ? getter.apply(client) : null;
            if (overridden != null) {
                return new Field<>(beanName, field, clientProperty, clientProperty, overridden);
            }
            return new Field<>(beanName, field, PREFIX + name, clientProperty, getter.apply(properties));
        }

        T require() {
            if (this.value == null) {
                throw missing();
            }
            return this.value;
        }

        InvalidRetryPropertyException missing() {
            return InvalidRetryPropertyException.missing(this.beanName, this.property, this.clientProperty);
        }
    }
}
