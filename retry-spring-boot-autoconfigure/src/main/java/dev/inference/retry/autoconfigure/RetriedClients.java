package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryClient;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * The {@code InferenceClient} beans to retry, and the beans of every other {@link RetriedBeanType}
 * (such as Spring AI's chat models), each with its validated policy, and the retrying clients the
 * application context holds for them.
 *
 * <p>A bean is retried unless {@code inference.retry.clients.<name>.enabled} is {@code false} or it
 * is the target of a scoped proxy (the proxy is retried instead). A bean whose object is a
 * {@link RetryClient} already is left as it is and needs no policy; it is described by its own name
 * and policy. Every other bean is wrapped, and must resolve to a complete, valid policy.
 *
 * <p>Validation happens at startup, in two steps, so that it does not depend on the order in which
 * beans are made, nor on whether they are {@code @Lazy}:
 * <ol>
 * <li>When this object is created, from the bean definitions, nothing instantiated: every entry
 * under {@code inference.retry.clients} must name an {@code InferenceClient} bean, and every bean to
 * retry must resolve to a policy. A bean whose declared type tells that it is not a
 * {@code RetryClient} fails startup at once when it does not; a bean declared as a type that a
 * {@code RetryClient} could be (such as {@code InferenceClient}) is left for its object to decide.</li>
 * <li>Once every eager singleton exists ({@link #afterSingletonsInstantiated()}): the products of
 * raw {@code FactoryBean}s, whose type only the factory knows, are found and validated the same way,
 * a {@code @Lazy} factory being made for it (never its product). Then each bean left to its object
 * that has no valid policy is made, if it is a {@code @Lazy} singleton not made yet, and fails
 * startup unless it is a {@code RetryClient}. A lazy bean with a valid policy is not made.</li>
 * </ol>
 */
final class RetriedClients implements SmartInitializingSingleton {

    private final InferenceRetryProperties properties;

    private final ConfigurableListableBeanFactory beanFactory;

    /** The types, besides {@code InferenceClient}, whose beans are retried or known. */
    private final List<RetriedBeanType> types;

    /** Every bean to retry found at startup, retried or not, in the order found. */
    private final List<String> found = new CopyOnWriteArrayList<>();

    /** The beans of types left alone, which entries under {@code inference.retry.clients} may name. */
    private final List<String> leftAlone = new CopyOnWriteArrayList<>();

    /** The beans to wrap, each with its policy. */
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();

    /** The beans without a valid policy that need none if their object is a {@code RetryClient}. */
    private final Map<String, InvalidRetryPropertyException> unresolved = new ConcurrentHashMap<>();

    /** The entry under {@code inference.retry.clients} that configures each bean that has one. */
    private volatile Map<String, ClientEntry> entries = Map.of();

    /** The retrying client the application context holds for a bean, once it is made; in the order made. */
    private final Map<String, Retrying> made = Collections.synchronizedMap(new LinkedHashMap<>());

    /** The retry budget of each bean to wrap that has one, made once per bean. */
    private final Map<String, RetryBudget> budgets = new ConcurrentHashMap<>();

    /** The cool-down key of each bean to wrap whose entry sets one. */
    private final Map<String, String> cooldownKeys = new ConcurrentHashMap<>();

    private RetriedClients(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory,
            List<RetriedBeanType> types) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.types = List.copyOf(types);
    }

    /**
     * Validates the properties against the {@code InferenceClient} bean definitions of a bean
     * factory: the first of the two steps of validation.
     *
     * @param properties the bound properties
     * @param beanFactory the bean factory whose definitions to read; no bean is created
     * @param types the types, besides {@code InferenceClient}, whose beans are retried or known
     * @return the beans to retry with their policies
     * @throws InvalidRetryPropertyException for the first entry under {@code inference.retry.clients}
     *     that names no bean of those types (nor a bean whose type is known only once it is made), or
     *     else for the first bean declared as a type that cannot be a {@code RetryClient} without a
     *     complete, valid policy
     */
    static RetriedClients resolve(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory,
            List<RetriedBeanType> types) {
        RetriedClients clients = new RetriedClients(properties, beanFactory, types);
        List<String> names = clients.beanNamesOf(InferenceClient.class);
        for (RetriedBeanType type : clients.types) {
            for (String name : clients.beanNamesOf(type.type())) {
                List<String> into = type.isRetried() ? names : clients.leftAlone;
                if (!names.contains(name) && !into.contains(name)) {
                    into.add(name);
                }
            }
        }
        clients.found.addAll(names);
        clients.matchClientEntries(false);
        names.forEach(clients::resolvePolicy);
        return clients;
    }

    /** The beans of a type, scoped targets left out; nothing is created to tell. */
    private List<String> beanNamesOf(Class<?> type) {
        List<String> names = new ArrayList<>();
        // allowEagerInit = false: find lazy beans and typed FactoryBeans without creating anything.
        for (String name : this.beanFactory.getBeanNamesForType(type, true, false)) {
            // A fallback chain is no model of its own: its members are retried, each once.
            if (!ScopedProxyUtils.isScopedTarget(name) && !this.properties.getFallbacks().containsKey(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /** Whether beans of a type are retried: {@code InferenceClient} or a retried {@link RetriedBeanType}. */
    private boolean isRetriedType(Class<?> type) {
        return InferenceClient.class.isAssignableFrom(type) || this.types.stream()
            .anyMatch((candidate) -> candidate.isRetried() && candidate.type().isAssignableFrom(type));
    }

    /** What the beans an entry may name are, for messages: {@code InferenceClient}, then each other type. */
    private String kinds() {
        List<String> kinds = new ArrayList<>();
        kinds.add(InferenceClient.class.getSimpleName());
        this.types.forEach((type) -> kinds.add(type.kind()));
        return String.join(" or ", kinds.stream().distinct().toList());
    }

    /**
     * Matches every entry under {@code inference.retry.clients} to the bean it names, names compared
     * as Spring Boot's relaxed binding compares property names (ignoring case, dashes and
     * underscores), so that {@code INFERENCE_RETRY_CLIENTS_OPENAICLIENT_MAXATTEMPTS}, which binds to
     * the entry {@code openaiclient}, configures the bean {@code openAiClient}. An entry must match
     * exactly one bean found, or else a bean whose type is still unknown.
     *
     * @param allowFactoryBeanInit whether a {@code FactoryBean} may be made to tell its product's type
     */
    private void matchClientEntries(boolean allowFactoryBeanInit) {
        Map<String, ClientEntry> matched = new LinkedHashMap<>();
        this.properties.getClients().forEach((key, client) -> {
            String property = "inference.retry.clients." + key;
            List<String> known = new ArrayList<>(this.found);
            known.addAll(this.leftAlone);
            List<String> beans = known.stream().filter((name) -> sameName(key, name)).toList();
            if (beans.size() > 1) {
                throw InvalidRetryPropertyException.ambiguousClient(key, property, beans, kinds());
            }
            if (beans.isEmpty()) {
                if (!isOfUnknownType(key, allowFactoryBeanInit)) {
                    throw InvalidRetryPropertyException.unknownClient(key, property, known, kinds());
                }
                return;
            }
            String bean = beans.get(0);
            ClientEntry entry = new ClientEntry(key, client);
            ClientEntry other = matched.get(bean);
            if (other != null && !other.hasTheSameSettings(entry)) {
                throw InvalidRetryPropertyException.conflictingClients(bean, "inference.retry.clients." + other.key(),
                        property);
            }
            // Of two entries with the same settings, the one written as the bean is named is reported.
            if (other == null || key.equals(bean)) {
                matched.put(bean, entry);
            }
        });
        this.entries = Map.copyOf(matched);
    }

    /** Whether two names are the same to Spring Boot's relaxed binding. */
    private static boolean sameName(String entry, String bean) {
        return ConfigurationPropertyName.adapt(entry, '.').equals(ConfigurationPropertyName.adapt(bean, '.'));
    }

    /** Returns the entry that configures a bean, matched now when the bean was not found at startup. */
    private Optional<ClientEntry> entryFor(String beanName) {
        ClientEntry entry = this.entries.get(beanName);
        if (entry != null) {
            return Optional.of(entry);
        }
        return this.properties.getClients().entrySet().stream()
            .filter((candidate) -> sameName(candidate.getKey(), beanName))
            .findFirst()
            .map((candidate) -> new ClientEntry(candidate.getKey(), candidate.getValue()));
    }

    private boolean isEnabled(String beanName) {
        return entryFor(beanName).map((entry) -> entry.client().isEnabled()).orElse(true);
    }

    private Policy resolvePolicyOf(String beanName) {
        String entry = entryFor(beanName).map(ClientEntry::key).orElse(null);
        try {
            Policy policy = ClientPolicyResolver.resolve(beanName, entry, this.properties);
            ClientFeaturesResolver.budget(beanName, entry, this.properties)
                .ifPresent((budget) -> this.budgets.putIfAbsent(beanName, budget));
            ClientFeaturesResolver.cooldownKey(beanName, entry, this.properties)
                .ifPresent((key) -> this.cooldownKeys.put(beanName, key));
            ClientFeaturesResolver.checkCooldownReleaseSpread(beanName, this.properties);
            return policy;
        }
        catch (InvalidRetryPropertyException ex) {
            throw ex.ofKind(kindOf(beanName));
        }
    }

    /** What a bean is, as messages name it: InferenceClient, else the retried type it is one of. */
    private String kindOf(String beanName) {
        Class<?> type = this.beanFactory.getType(beanName, false);
        if (type == null || InferenceClient.class.isAssignableFrom(type)) {
            return InferenceClient.class.getSimpleName();
        }
        return this.types.stream()
            .filter((candidate) -> candidate.type().isAssignableFrom(type))
            .map(RetriedBeanType::kind)
            .findFirst()
            .orElse(InferenceClient.class.getSimpleName());
    }

    /**
     * Returns the retry budget of a bean to wrap: one bucket per bean, made when its policy was
     * resolved.
     *
     * @param beanName the bean's name
     * @return the budget, or empty when the bean has none
     */
    Optional<RetryBudget> budgetFor(String beanName) {
        return Optional.ofNullable(this.budgets.get(beanName));
    }

    /**
     * Returns the provider account whose cool-down a bean to wrap shares.
     *
     * @param beanName the bean's name
     * @return the key its entry sets, or the bean's name
     */
    String cooldownKeyFor(String beanName) {
        return this.cooldownKeys.getOrDefault(beanName, beanName);
    }

    /** Resolves the policy of a bean found, or leaves the bean to its object when that may decide. */
    private void resolvePolicy(String name) {
        Class<?> type = this.beanFactory.getType(name, false);
        if (!isEnabled(name) || (type != null && RetryClient.class.isAssignableFrom(type))) {
            return;
        }
        try {
            this.policies.put(name, resolvePolicyOf(name));
        }
        catch (InvalidRetryPropertyException ex) {
            if (!couldBeARetryClient(type) || !isSingleton(name)) {
                throw ex;
            }
            this.unresolved.put(name, ex);
        }
    }

    /**
     * Whether an entry names a bean whose type is known only once it is made, such as a raw
     * {@code FactoryBean}'s product.
     */
    private boolean isOfUnknownType(String entry, boolean allowFactoryBeanInit) {
        for (String name : this.beanFactory.getBeanDefinitionNames()) {
            if (sameName(entry, name) && this.beanFactory.getType(name, allowFactoryBeanInit) == null) {
                return true;
            }
        }
        return false;
    }

    /** Whether a bean declared as this type (null when unknown) may turn out to be a RetryClient. */
    private static boolean couldBeARetryClient(@Nullable Class<?> type) {
        return type == null || type.isAssignableFrom(RetryClient.class);
    }

    /** Whether the bean is a singleton, told from its definition so that nothing is made to tell. */
    private boolean isSingleton(String name) {
        return this.beanFactory.containsBeanDefinition(name)
                ? this.beanFactory.getMergedBeanDefinition(name).isSingleton()
                : this.beanFactory.containsSingleton(name);
    }

    /**
     * The second step of validation, once every eager singleton exists. First, the products of
     * {@code FactoryBean}s that do not declare their type are found, making a {@code @Lazy} factory
     * (not its product) if it must be made to tell, as Spring does to autowire by type; they are
     * validated like the others, and so are the entries under {@code inference.retry.clients}
     * again. Then each bean left to its object that has no valid policy is made, unless it is made
     * already, so that it fails startup unless it is a {@code RetryClient}.
     *
     * @throws InvalidRetryPropertyException for an entry under {@code inference.retry.clients} that
     *     names no {@code InferenceClient} bean, or a bean found now without a complete, valid policy
     * @throws RuntimeException what making a bean left to its object threw: an
     *     {@link InvalidRetryPropertyException} (as the cause of a {@code BeanCreationException}) when
     *     it is not a {@code RetryClient}
     */
    @Override
    public void afterSingletonsInstantiated() {
        List<String> factoryMade = new ArrayList<>();
        for (String name : this.beanFactory.getBeanDefinitionNames()) {
            if (!this.found.contains(name) && !ScopedProxyUtils.isScopedTarget(name)
                    && !this.beanFactory.getMergedBeanDefinition(name).isAbstract()
                    && this.beanFactory.isFactoryBean(name)) {
                // Made by now if it is eager: then its type is known without making anything.
                Class<?> type = this.beanFactory.getType(name, true);
                if (type != null && isRetriedType(type)) {
                    factoryMade.add(name);
                }
            }
        }
        this.found.addAll(factoryMade);
        matchClientEntries(true);
        factoryMade.forEach(this::resolvePolicy);
        for (String name : this.found) {
            if (this.unresolved.containsKey(name) && !this.made.containsKey(name)) {
                this.beanFactory.getBean(name);
            }
        }
    }

    /**
     * Returns the policy to wrap a bean with, whose object is not a {@code RetryClient}.
     *
     * <p>A bean that was not found at startup (made before the second step of validation found it,
     * or registered later) has its policy resolved now, by the same rules.
     *
     * @param beanName the name of an {@code InferenceClient} bean
     * @return the policy, or empty when the bean is not to be wrapped (switched off, or not a named
     *     bean of the factory, such as an inner bean)
     * @throws InvalidRetryPropertyException when the bean has no complete, valid policy
     */
    Optional<Policy> policyFor(String beanName) {
        Policy policy = this.policies.get(beanName);
        if (policy != null) {
            return Optional.of(policy);
        }
        InvalidRetryPropertyException unresolvedPolicy = this.unresolved.get(beanName);
        if (unresolvedPolicy != null) {
            throw unresolvedPolicy;
        }
        if (this.found.contains(beanName) || !isEnabled(beanName) || !this.beanFactory.containsBean(beanName)
                || this.properties.getFallbacks().containsKey(beanName)) {
            return Optional.empty();
        }
        return Optional.of(resolvePolicyOf(beanName));
    }

    /**
     * Records the retrying client that the application context holds for a bean: the one it was
     * wrapped in, or its own object when that is a {@code RetryClient} already.
     *
     * @param beanName the name of the bean
     * @param client the retrying client
     */
    void made(String beanName, RetryClient client) {
        made(beanName, client.retrier());
    }

    /**
     * Records the retrier with which a bean of another {@link RetriedBeanType} is retried.
     *
     * @param beanName the name of the bean
     * @param retrier its retrier
     */
    void made(String beanName, Retrier retrier) {
        if (isEnabled(beanName) && this.beanFactory.containsBean(beanName)) {
            this.made.put(beanName, new Retrying(retrier.name(), retrier.policy(), retrier.budget().orElse(null),
                    retrier.cooldownKey()));
        }
    }

    /**
     * Returns every retried client: those the application context holds (read from the client
     * itself), and the beans still to be made that will be wrapped. A bean declared as a
     * {@code RetryClient} is listed once it is made, as its policy is known only then.
     *
     * @return an unmodifiable map from bean name to client, in bean registration order, then the
     *     beans found later in the order they were made
     */
    Map<String, Retrying> clients() {
        Map<String, Retrying> made;
        synchronized (this.made) {
            made = new LinkedHashMap<>(this.made);
        }
        Set<String> names = new LinkedHashSet<>(this.found);
        names.addAll(made.keySet());
        Map<String, Retrying> clients = new LinkedHashMap<>();
        for (String name : names) {
            Retrying retrying = made.get(name);
            if (retrying == null && this.policies.containsKey(name)) {
                retrying = new Retrying(name, this.policies.get(name), this.budgets.get(name), cooldownKeyFor(name));
            }
            if (retrying != null) {
                clients.put(name, retrying);
            }
        }
        return Collections.unmodifiableMap(clients);
    }

    /**
     * An entry under {@code inference.retry.clients}.
     *
     * @param key the entry's name, as it was bound
     * @param client its settings
     */
    private record ClientEntry(String key, InferenceRetryProperties.Client client) {

        boolean hasTheSameSettings(ClientEntry other) {
            InferenceRetryProperties.Client mine = this.client;
            InferenceRetryProperties.Client theirs = other.client;
            return mine.isEnabled() == theirs.isEnabled()
                    && Objects.equals(mine.getStableRetries(), theirs.getStableRetries())
                    && Objects.equals(mine.getStableDelay(), theirs.getStableDelay())
                    && Objects.equals(mine.getMaxAttempts(), theirs.getMaxAttempts())
                    && Objects.equals(mine.getMaxDelay(), theirs.getMaxDelay())
                    && mine.getBudget().isEnabled() == theirs.getBudget().isEnabled()
                    && Objects.equals(mine.getBudget().getMaxTokens(), theirs.getBudget().getMaxTokens())
                    && sameNumber(mine.getBudget().getTokenRatio(), theirs.getBudget().getTokenRatio())
                    && Objects.equals(mine.getCooldownKey(), theirs.getCooldownKey());
        }

        /** Compares two ratios by value: 0.1 and 0.10 are the same setting. */
        private static boolean sameNumber(@Nullable BigDecimal mine, @Nullable BigDecimal theirs) {
            return (mine == null) ? theirs == null : theirs != null && mine.compareTo(theirs) == 0;
        }
    }

    /**
     * A retrying client as its listeners see it.
     *
     * @param name the client's name, which its events and meters carry
     * @param policy its policy
     * @param budget its retry budget, or {@code null} when it has none
     * @param cooldownKey the provider account whose cool-down it shares, when a store is configured
     */
    record Retrying(String name, Policy policy, @Nullable RetryBudget budget, String cooldownKey) {
    }
}
