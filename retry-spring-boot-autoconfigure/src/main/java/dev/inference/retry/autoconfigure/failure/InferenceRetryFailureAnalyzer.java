package dev.inference.retry.autoconfigure.failure;

import dev.inference.retry.ConfigException;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Turns a {@link ConfigException} into the "APPLICATION FAILED TO START" report: the Description
 * names the bean, the property, the value (and where it was set) and the rule it breaks; the Action
 * says which property to set or change. Every missing field of the bean is described, one block each,
 * when several are (they come suppressed in the first one's exception).
 */
public class InferenceRetryFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {

    private final @Nullable Environment environment;

    /**
     * Creates the analyzer; Spring Boot gives it the application's environment.
     *
     * @param environment where the properties were set, to say where each came from, or {@code null} when
     *     unknown (the report then leaves out the origin)
     */
    public InferenceRetryFailureAnalyzer(@Nullable Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigException cause) {
        if (!(cause instanceof InvalidRetryPropertyException invalid)) {
            // A policy built in code: the field is a record component, not a property.
            return new FailureAnalysis("Invalid retry policy: " + cause.getMessage(),
                    "Change " + cause.field() + ": it " + cause.rule() + ".", cause);
        }
        StringBuilder description = new StringBuilder(invalid.heading()).append('\n');
        StringBuilder action = new StringBuilder();
        for (InvalidRetryPropertyException each : withSuppressed(invalid)) {
            describe(each, description);
            action.append(action.isEmpty() ? "" : "\n").append(each.action());
        }
        return new FailureAnalysis(description.toString().stripTrailing(), action.toString(), cause);
    }

    /** The exception, then the ones about the same bean suppressed in it: several fields missing at once. */
    private static List<InvalidRetryPropertyException> withSuppressed(InvalidRetryPropertyException invalid) {
        List<InvalidRetryPropertyException> all = new ArrayList<>();
        all.add(invalid);
        for (Throwable suppressed : invalid.getSuppressed()) {
            if (suppressed instanceof InvalidRetryPropertyException other && other.beanName().equals(invalid.beanName())) {
                all.add(other);
            }
        }
        return all;
    }

    private void describe(InvalidRetryPropertyException invalid, StringBuilder description) {
        description.append("\n    Property: ").append(invalid.property());
        invalid.value().ifPresent((value) -> description.append("\n    Value: ").append(value));
        Origin origin = originOf(invalid.property());
        if (origin != null) {
            description.append("\n    Origin: ").append(origin);
        }
        description.append("\n    Reason: ").append(invalid.rule()).append('\n');
    }

    private @Nullable Origin originOf(String property) {
        if (this.environment == null) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.adapt(property, '.');
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found.getOrigin();
            }
        }
        return null;
    }
}
