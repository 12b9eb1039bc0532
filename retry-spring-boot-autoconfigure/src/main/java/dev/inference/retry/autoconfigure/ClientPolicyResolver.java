package dev.inference.retry.autoconfigure;

import dev.inference.retry.ConfigException;
import dev.inference.retry.Policy;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the {@link Policy} of one {@code InferenceClient} bean from {@link InferenceRetryProperties}:
 * field by field, the bean's entry under {@code inference.retry.clients} over the top-level value.
 * A field set in neither place is an error, never a default; so is a value the {@link Policy}
 * refuses, or a delay too long to be waited out.
 */
final class ClientPolicyResolver {

    private static final String PREFIX = "inference.retry.";

    /**
     * The longest delay accepted: the longest wait in nanoseconds that a {@code long} holds, about 292
     * years. Longer delays cannot be waited out, as waiting counts nanoseconds.
     */
    static final Duration LONGEST_DELAY = Duration.ofNanos(Long.MAX_VALUE);

    /** The record components a {@link ConfigException} from {@link Policy} may name in its rule. */
    private static final Pattern COMPONENT = Pattern.compile("\\b(stableRetries|stableDelay|maxAttempts|maxDelay)\\b");

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
     *     missing or a value is invalid
     */
    static Policy resolve(String beanName, @Nullable String entry, InferenceRetryProperties properties) {
        InferenceRetryProperties.@Nullable Client client = (entry != null) ? properties.getClients().get(entry) : null;
        String clientName = (entry != null) ? entry : beanName;
        Field<Integer> stableRetries = Field.of(beanName, clientName, "stable-retries", "stableRetries", properties,
                client, RetryPolicyProperties::getStableRetries);
        Field<Duration> stableDelay = Field.of(beanName, clientName, "stable-delay", "stableDelay", properties,
                client, RetryPolicyProperties::getStableDelay);
        Field<Integer> maxAttempts = Field.of(beanName, clientName, "max-attempts", "maxAttempts", properties,
                client, RetryPolicyProperties::getMaxAttempts);
        Field<Duration> maxDelay = Field.of(beanName, clientName, "max-delay", "maxDelay", properties, client,
                RetryPolicyProperties::getMaxDelay);
        List<Field<?>> fields = List.of(stableRetries, stableDelay, maxAttempts, maxDelay);
        for (Field<?> field : fields) {
            field.require();
        }
        waitable(beanName, stableDelay);
        waitable(beanName, maxDelay);
        try {
            return new Policy(stableRetries.require(), stableDelay.require(), maxAttempts.require(), maxDelay.require());
        }
        catch (ConfigException ex) {
            Field<?> offending = fields.stream()
                .filter((field) -> field.component.equals(ex.field()))
                .findFirst()
                .orElseThrow(() -> ex);
            throw InvalidRetryPropertyException.invalid(beanName, offending.property, offending.require(),
                    inPropertyNames(ex.rule(), fields));
        }
    }

    private static void waitable(String beanName, Field<Duration> delay) {
        if (delay.require().compareTo(LONGEST_DELAY) > 0) {
            throw InvalidRetryPropertyException.invalid(beanName, delay.property, delay.require(),
                    "must be at most " + LONGEST_DELAY + " (the longest wait counted in nanoseconds)");
        }
    }

    /**
     * Rewrites a rule of {@link Policy}, which names record components, in the property names the
     * values came from: {@code "must be less than maxAttempts (3)"} becomes
     * {@code "must be less than inference.retry.max-attempts (3)"}.
     */
    private static String inPropertyNames(String rule, List<Field<?>> fields) {
        Matcher matcher = COMPONENT.matcher(rule);
        StringBuilder rewritten = new StringBuilder();
        while (matcher.find()) {
            String component = matcher.group(1);
            String property = fields.stream()
                .filter((field) -> field.component.equals(component))
                .map((field) -> field.property)
                .findFirst()
                .orElse(component);
            matcher.appendReplacement(rewritten, Matcher.quoteReplacement(property));
        }
        matcher.appendTail(rewritten);
        return rewritten.toString();
    }

    /** One policy field of one bean: its value and the full name of the property it came from. */
    private static final class Field<T> {

        private final String beanName;

        /** The {@link Policy} record component this field becomes. */
        private final String component;

        /** The property the value came from, or the top-level property to set when missing. */
        private final String property;

        private final String clientProperty;

        private final @Nullable T value;

        private Field(String beanName, String component, String property, String clientProperty, @Nullable T value) {
            this.beanName = beanName;
            this.component = component;
            this.property = property;
            this.clientProperty = clientProperty;
            this.value = value;
        }

        static <T> Field<T> of(String beanName, String clientName, String name, String component,
                InferenceRetryProperties properties, InferenceRetryProperties.@Nullable Client client,
                Function<RetryPolicyProperties, @Nullable T> field) {
            String clientProperty = PREFIX + "clients." + clientName + "." + name;
            T overridden = (client != null) ? field.apply(client) : null;
            if (overridden != null) {
                return new Field<>(beanName, component, clientProperty, clientProperty, overridden);
            }
            return new Field<>(beanName, component, PREFIX + name, clientProperty, field.apply(properties));
        }

        T require() {
            if (this.value == null) {
                throw InvalidRetryPropertyException.missing(this.beanName, this.property, this.clientProperty);
            }
            return this.value;
        }
    }
}
