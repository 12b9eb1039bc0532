package dev.inference.retry;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A retry configuration is incomplete or invalid. The message names the field, the value and the
 * rule it breaks, so that it can be shown to the person who wrote the configuration as it is.
 *
 * <p>Nothing in this library replaces a missing or invalid value with a default: it throws this
 * instead.
 */
public class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The name of the setting that is wrong. */
    private final String field;

    private final transient @Nullable Object value;

    /** The rule the value breaks. */
    private final String rule;

    /**
     * Creates the exception with the message {@code "<field> = <value> is invalid: <rule>"}, or
     * {@code "<field> is not set: <rule>"} when {@code value} is {@code null}.
     *
     * @param field the name of the offending field, as the reader wrote it (a record component or a
     *     full property name)
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     */
    public ConfigException(String field, @Nullable Object value, String rule) {
        this(describe(field, value, rule), field, value, rule);
    }

    /**
     * Creates the exception with a message of the caller's own, which should still name the field,
     * the value and the rule.
     *
     * @param message the full message
     * @param field the name of the offending field
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     */
    public ConfigException(String message, String field, @Nullable Object value, String rule) {
        super(message);
        this.field = Objects.requireNonNull(field, "field must not be null");
        this.value = value;
        this.rule = Objects.requireNonNull(rule, "rule must not be null");
    }

    /**
     * Returns the name of the offending field.
     *
     * @return the field name
     */
    public String field() {
        return this.field;
    }

    /**
     * Returns the offending value.
     *
     * @return the value, or empty when the field is missing
     */
    public Optional<Object> value() {
        return Optional.ofNullable(this.value);
    }

    /**
     * Returns the broken rule, phrased as what the value must be (for example
     * {@code "must be at least 1"}).
     *
     * @return the rule
     */
    public String rule() {
        return this.rule;
    }

    private static String describe(String field, @Nullable Object value, String rule) {
        return (value != null) ? field + " = " + value + " is invalid: " + rule : field + " is not set: " + rule;
    }
}
