package dev.inference.retry.autoconfigure.settings;

import dev.inference.retry.ConfigException;
import java.util.Collection;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code inference.retry} properties give an {@code InferenceClient} bean no valid retry policy,
 * or configure a bean that does not exist.
 *
 * <p>A {@link ConfigException} whose {@linkplain #field() field} is the full name of the property to
 * change (such as {@code inference.retry.clients.openai.max-attempts}), and which also names the
 * bean and says what to do about it. The message reads
 * {@code "InferenceClient bean '<bean>': <property> = <value> is invalid: <rule>"}, or
 * {@code "... <property> is not set: <rule>"} when the value is missing, and
 * {@code "<property> names no InferenceClient bean: <rule>"} for an entry under
 * {@code inference.retry.clients} that matches no bean, and
 * {@code "<property> matches more than one InferenceClient bean: <rule>"} for one that matches
 * several. Entries match bean names as Spring Boot's relaxed binding matches property names.
 *
 * <p>The one type of startup failure for a property that is wrong, reported alike by the failure
 * analyzer; its subclasses say what else the property configures: a fallback chain, a model's own
 * client, or the cool-down store ({@link dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException}).
 */
public class InvalidRetryPropertyException extends ConfigException {

    private static final long serialVersionUID = 1L;

    /** What the beans are that this exception is about, unless told otherwise. */
    private static final String INFERENCE_CLIENT = "InferenceClient";

    /** The name of the bean the property configures. */
    private final String beanName;

    /** What to change, naming the exact property keys. */
    private final String action;

    /** What the bean is, as messages name it, such as {@code InferenceClient}. */
    private final String kind;

    /**
     * Creates the exception.
     *
     * @param beanName the name of the {@code InferenceClient} bean the property configures
     * @param property the full name of the offending property
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     * @param action what to change, naming the exact property keys
     */
    public InvalidRetryPropertyException(String beanName, String property, @Nullable Object value, String rule,
            String action) {
        this(INFERENCE_CLIENT, beanName, property, value, rule, action);
    }

    /**
     * Creates the exception about a bean of another retried type, such as a {@code ChatModel}: for
     * the integrations that retry such beans, when a setting of the bean's own client conflicts
     * with its retry.
     *
     * @param kind what the bean is, as messages name it, such as {@code ChatModel}
     * @param beanName the name of the bean the property configures
     * @param property the full name of the offending property
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     * @param action what to change, naming the exact property keys
     */
    protected InvalidRetryPropertyException(String kind, String beanName, String property, @Nullable Object value,
            String rule, String action) {
        this(kind + " bean '" + beanName + "': " + describe(property, value, rule), kind, beanName, property, value,
                rule, action);
    }

    /**
     * Creates the exception with its whole message, for the ones that are about no bean's own settings,
     * such as the cool-down store's.
     *
     * @param message the whole message
     * @param kind what the bean is, as messages name it
     * @param beanName the name of the bean the property configures
     * @param property the full name of the offending property
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     * @param action what to change, naming the exact property keys
     */
    protected InvalidRetryPropertyException(String message, String kind, String beanName, String property,
            @Nullable Object value, String rule, String action) {
        super(message, property, value, rule);
        this.beanName = Objects.requireNonNull(beanName, "beanName must not be null");
        this.action = Objects.requireNonNull(action, "action must not be null");
        this.kind = kind;
    }

    /**
     * Returns the same exception about a bean of another kind, such as a {@code ChatModel}: its message
     * and action name the bean as what it is.
     *
     * @param kind what the bean is, as messages name it, such as {@code ChatModel}
     * @return this exception when it names the bean so already, else a copy with its stack trace, whose
     *     suppressed exceptions of this type are copied the same way
     */
    public InvalidRetryPropertyException ofKind(String kind) {
        if (kind.equals(this.kind)) {
            return this;
        }
        String of = this.kind + " bean '" + this.beanName + "'";
        String is = kind + " bean '" + this.beanName + "'";
        InvalidRetryPropertyException copy = new InvalidRetryPropertyException(
                String.valueOf(getMessage()).replace(of, is), kind, this.beanName, property(), value().orElse(null),
                rule(), this.action.replace(of, is));
        copy.setStackTrace(getStackTrace());
        // The other missing fields of the same bean, if any: named as what the bean is, too.
        for (Throwable suppressed : getSuppressed()) {
            copy.addSuppressed((suppressed instanceof InvalidRetryPropertyException other) ? other.ofKind(kind) : suppressed);
        }
        return copy;
    }

    /**
     * Returns what the bean is, as messages name it: {@code InferenceClient}, or another retried type
     * such as {@code ChatModel}.
     *
     * @return the simple name of the bean's retried type
     */
    public String kind() {
        return this.kind;
    }

    /**
     * Creates the exception for a policy field that is set neither for the bean nor at the top level.
     */
    static InvalidRetryPropertyException missing(String beanName, String property, String clientProperty) {
        return new InvalidRetryPropertyException(beanName, property, null,
                "must be set, or " + clientProperty + " instead; there is no default",
                "Set " + property + " (for every retried bean) or " + clientProperty + " (for bean '"
                        + beanName + "' only).");
    }

    /**
     * Creates the exception for a value that breaks a rule.
     */
    static InvalidRetryPropertyException invalid(String beanName, String property, Object value, String rule) {
        return new InvalidRetryPropertyException(beanName, property, value, rule,
                "Change " + property + ": it " + rule + ".");
    }

    /**
     * Creates the exception for an entry under {@code inference.retry.clients} that names no bean of
     * the retried kinds ({@code kinds}, such as {@code "InferenceClient or ChatModel"}).
     */
    static InvalidRetryPropertyException unknownClient(String name, String property, Collection<String> beanNames,
            String kinds) {
        String rule = "must be the name of an " + kinds + " bean "
                + (beanNames.isEmpty() ? "(there is none)" : "(one of " + beanNames + ")");
        return new InvalidRetryPropertyException(property + " names no " + kinds + " bean: " + rule, INFERENCE_CLIENT,
                name, property, null, rule, "Rename " + property + " after the " + kinds + " bean it is meant for"
                        + (beanNames.isEmpty() ? "" : " (one of " + beanNames + ")") + ", or remove it.");
    }

    /**
     * Creates the exception for an entry under {@code inference.retry.clients} that matches more
     * than one bean of the retried kinds ({@code kinds}), their names differing only in case, dashes
     * or underscores.
     */
    static InvalidRetryPropertyException ambiguousClient(String name, String property, Collection<String> beanNames,
            String kinds) {
        String rule = "must match exactly one, names compared as Spring Boot's relaxed binding compares them, "
                + "ignoring case, dashes and underscores (it matches " + beanNames + ")";
        return new InvalidRetryPropertyException(property + " matches more than one " + kinds + " bean: " + rule,
                INFERENCE_CLIENT, name, property, null, rule, "Rename one of the " + kinds + " beans " + beanNames
                        + " so that their names differ in more than case, dashes and underscores, or remove "
                        + property + ".");
    }

    /**
     * Creates the exception for two entries under {@code inference.retry.clients} that name the same
     * bean in two forms, such as {@code openAiClient} and {@code openaiclient}, and set it
     * differently.
     */
    static InvalidRetryPropertyException conflictingClients(String beanName, String property, String otherProperty) {
        String rule = "must set the bean as " + otherProperty + " does, which names the same bean, or be the only "
                + "entry for it";
        return new InvalidRetryPropertyException("InferenceClient bean '" + beanName + "': " + property
                + " sets it differently from " + otherProperty + ": " + rule, INFERENCE_CLIENT, beanName, property,
                null, rule, "Keep one of " + otherProperty + " and " + property + ", with the settings meant for bean '"
                        + beanName + "'.");
    }

    /**
     * Returns what the startup report says first: which bean's (or chain's) configuration is wrong.
     *
     * @return the heading, one line ending with a colon
     */
    public String heading() {
        return "Invalid retry configuration for " + this.kind + " bean '" + this.beanName + "':";
    }

    /**
     * Describes a property that breaks a rule, as every message of this type does.
     *
     * @param property the full name of the property
     * @param value its value, or {@code null} when it is missing
     * @param rule the rule that is broken
     * @return {@code "<property> = <value> is invalid: <rule>"}, or {@code "<property> is not set: <rule>"}
     */
    protected static String describe(String property, @Nullable Object value, String rule) {
        return (value != null) ? property + " = " + value + " is invalid: " + rule
                : property + " is not set: " + rule;
    }

    /**
     * Returns the name of the {@code InferenceClient} bean that the property configures, as written
     * under {@code inference.retry.clients} when no such bean exists.
     *
     * @return the bean name
     */
    public String beanName() {
        return this.beanName;
    }

    /**
     * Returns the full name of the offending property; the same as {@link #field()}.
     *
     * @return the property name
     */
    public String property() {
        return field();
    }

    /**
     * Returns what to change to fix the configuration, naming the exact property keys.
     *
     * @return the action, one or more sentences
     */
    public String action() {
        return this.action;
    }
}
