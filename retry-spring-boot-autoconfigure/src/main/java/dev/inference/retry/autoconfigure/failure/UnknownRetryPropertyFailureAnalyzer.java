package dev.inference.retry.autoconfigure.failure;

import dev.inference.retry.autoconfigure.settings.RetryPolicyProperties;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Describes keys under {@code inference.retry} that no property binds: a misspelt or invented key
 * (such as {@code inference.retry.clients.openai.max-atempts}), or a property left blank. The
 * Description names each key, where it was set and the keys that exist; the Action says to correct
 * or remove it. Keys outside {@code inference.retry} are left to Spring Boot's own analyzer, which
 * this one precedes.
 *
 * <p>The value of an unknown key is not printed: a key that is not a retry setting may hold
 * anything, a misplaced credential included. Its origin says where to find it.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class UnknownRetryPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("inference.retry");

    /** The settings of each client: enabled, the policy's fields, then its budget and cool-down key. */
    private static final List<String> CLIENT_KEYS = keys("budget.enabled", "budget.max-tokens", "budget.token-ratio",
            "cooldown-key");

    /** The settings of the top level: enabled, the policy's fields, then the shared features. */
    private static final List<String> TOP_LEVEL_KEYS = keys("budget.max-tokens", "budget.token-ratio",
            "cooldown.store", "cooldown.namespace", "observations.enabled", "spring-ai.enabled");

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        List<ConfigurationProperty> properties = cause.getUnboundProperties()
            .stream()
            .sorted(Comparator.comparing((property) -> property.getName().toString()))
            .toList();
        if (properties.isEmpty() || !properties.stream().allMatch((property) -> PREFIX.isAncestorOf(property.getName()))) {
            return null;
        }
        StringBuilder description = new StringBuilder("Unknown or blank retry configuration:\n");
        StringBuilder action = new StringBuilder();
        for (ConfigurationProperty property : properties) {
            String name = asWritten(property.getName());
            boolean blank = isSetting(property.getName()) && property.getValue() instanceof CharSequence value
                    && value.toString().isBlank();
            description.append("\n    Property: ").append(name);
            Origin origin = property.getOrigin();
            if (origin != null) {
                description.append("\n    Origin: ").append(origin);
            }
            description.append("\n    Reason: ").append(blank ? blankReason() : unknownReason(property.getName()))
                .append('\n');
            action.append(action.isEmpty() ? "" : "\n")
                .append(blank ? "Set " + name + " to a value, or remove it." : "Correct or remove " + name + ".");
        }
        return new FailureAnalysis(description.toString().stripTrailing(), action.toString(), cause);
    }

    /**
     * The name as it was written, so that it can be searched for: the canonical form lowercases every
     * element, a bean name such as {@code myClient} in {@code clients.myClient} included.
     */
    private static String asWritten(ConfigurationPropertyName name) {
        StringBuilder written = new StringBuilder();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            String element = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
            if (name.isNumericIndex(i)) {
                written.append('[').append(element).append(']');
            }
            else {
                written.append(written.isEmpty() ? "" : ".").append(element);
            }
        }
        return written.toString();
    }

    /** Whether the name is one of the properties: {@code inference.retry.<setting>} or a client's. */
    private static boolean isSetting(ConfigurationPropertyName name) {
        boolean client = isUnderClients(name);
        StringBuilder relative = new StringBuilder();
        for (int i = client ? 4 : 2; i < name.getNumberOfElements(); i++) {
            relative.append(relative.isEmpty() ? "" : ".").append(name.getElement(i, ConfigurationPropertyName.Form.DASHED));
        }
        return (client ? CLIENT_KEYS : TOP_LEVEL_KEYS).contains(relative.toString());
    }

    private static boolean isUnderClients(ConfigurationPropertyName name) {
        return name.getNumberOfElements() > 4 && "clients".equals(name.getElement(2, ConfigurationPropertyName.Form.DASHED));
    }

    private static String blankReason() {
        return "is blank: a retry property takes a value, or is left out";
    }

    private static String unknownReason(ConfigurationPropertyName name) {
        if (name.getNumberOfElements() > 4 && "fallbacks".equals(name.getElement(2, ConfigurationPropertyName.Form.DASHED))) {
            return "is not a setting of a fallback chain: inference.retry.fallbacks.<chain> takes members, primary, "
                    + "skip-after, skip-for and models.<member>";
        }
        if (isUnderClients(name)) {
            return "is not a setting of a client: inference.retry.clients.<bean-name> takes " + sentence(CLIENT_KEYS);
        }
        List<String> keys = new ArrayList<>(TOP_LEVEL_KEYS);
        keys.add("clients.<bean-name>");
        keys.add("fallbacks.<chain>");
        return "is not a retry property: inference.retry takes " + sentence(keys);
    }

    /** Lists enabled, the policy's fields, then these. */
    private static List<String> keys(String... more) {
        List<String> keys = new ArrayList<>();
        keys.add("enabled");
        keys.addAll(RetryPolicyProperties.PROPERTY_NAMES.values());
        keys.addAll(List.of(more));
        return List.copyOf(keys);
    }

    /** Joins "a, b and c". */
    private static String sentence(List<String> words) {
        return String.join(", ", words.subList(0, words.size() - 1)) + " and " + words.get(words.size() - 1);
    }
}
