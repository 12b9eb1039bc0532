package dev.inference.retry.autoconfigure.settings;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * The one place where the entries under {@code inference.retry.clients} are matched to the beans they
 * name, and refused when they name none (SPEC §5: a typo fails startup). Names are compared as Spring
 * Boot's relaxed binding compares property names, ignoring case, dashes and underscores, so that
 * {@code INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS}, bound to the entry {@code openaiclient},
 * configures the bean {@code openAiClient}.
 *
 * <p>Trap: two entries may then name one bean (a name in brackets binds as written). They are accepted
 * when they give the bean equal {@link BeanRetrySettings}, and refused otherwise; of two accepted, the
 * one written as the bean is named is the one messages report.
 */
public final class ClientEntries {

    private static final String PREFIX = "inference.retry.clients.";

    private ClientEntries() {
    }

    /**
     * Checks that every entry names exactly one bean, and that two entries naming one bean set it alike.
     *
     * @param properties the bound properties
     * @param beans the names of the beans an entry may name, in the order they were found
     * @param ofUnknownType whether an entry may name a bean whose type is still unknown (the product
     *     of a raw {@code FactoryBean}): such an entry is left unmatched, not refused
     * @param kinds what the beans are, for messages, such as {@code "InferenceClient or ChatModel"}
     * @throws InvalidRetryPropertyException for the first entry that names no bean or several, or that
     *     sets a bean differently from another entry naming it
     */
    public static void validate(InferenceRetryProperties properties, Collection<String> beans,
            Predicate<String> ofUnknownType, String kinds) {
        Map<String, String> matched = new LinkedHashMap<>();
        for (String key : properties.getClients().keySet()) {
            String property = PREFIX + key;
            List<String> named = beans.stream().filter((name) -> sameName(key, name)).toList();
            if (named.size() > 1) {
                throw InvalidRetryPropertyException.ambiguousClient(key, property, named, kinds);
            }
            if (named.isEmpty()) {
                if (!ofUnknownType.test(key)) {
                    throw InvalidRetryPropertyException.unknownClient(key, property, List.copyOf(beans), kinds);
                }
                continue;
            }
            String bean = named.get(0);
            String other = matched.get(bean);
            if (other != null && !sameSettings(properties, bean, other, key)) {
                throw InvalidRetryPropertyException.conflictingClients(bean, PREFIX + other, property);
            }
            // Of two entries that set the bean alike, the one written as the bean is named is reported.
            if (other == null || key.equals(bean)) {
                matched.put(bean, key);
            }
        }
    }

    /**
     * Finds the entry that configures a bean: the one written as the bean is named, else the first that
     * names it.
     *
     * @param properties the bound properties
     * @param beanName the bean's name
     * @return the entry's key, or empty when no entry names the bean
     */
    public static Optional<String> entryFor(InferenceRetryProperties properties, String beanName) {
        Set<String> keys = properties.getClients().keySet();
        return keys.contains(beanName) ? Optional.of(beanName)
                : keys.stream().filter((key) -> sameName(key, beanName)).findFirst();
    }

    /**
     * Tells whether two names are the same to Spring Boot's relaxed binding.
     *
     * @param entry a key under {@code inference.retry.clients}
     * @param bean a bean's name
     * @return {@code true} when they differ at most in case, dashes and underscores
     */
    public static boolean sameName(String entry, String bean) {
        return ConfigurationPropertyName.adapt(entry, '.').equals(ConfigurationPropertyName.adapt(bean, '.'));
    }

    /**
     * Whether two entries set a bean alike: both leave it alone, or both resolve to equal settings.
     * Two entries that both fail to resolve are taken as alike: the one kept is reported later.
     */
    private static boolean sameSettings(InferenceRetryProperties properties, String bean, String key, String other) {
        boolean enabled = Objects.requireNonNull(properties.getClients().get(key)).isEnabled();
        if (enabled != Objects.requireNonNull(properties.getClients().get(other)).isEnabled()) {
            return false;
        }
        return !enabled || resolve(properties, bean, key).equals(resolve(properties, bean, other));
    }

    private static Optional<BeanRetrySettings> resolve(InferenceRetryProperties properties, String bean, String key) {
        try {
            return Optional.of(BeanRetrySettings.resolve(bean, key, properties));
        }
        catch (InvalidRetryPropertyException ex) {
            return Optional.empty();
        }
    }
}
