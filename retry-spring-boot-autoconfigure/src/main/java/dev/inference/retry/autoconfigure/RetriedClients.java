package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryClient;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.settings.BeanRetrySettings;
import dev.inference.retry.autoconfigure.settings.ClientEntries;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.autoconfigure.settings.RetrySettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The beans to retry ({@code InferenceClient} beans and those of every retried {@link RetriedBeanType}),
 * found and validated at startup, and the {@link RetrySettings} snapshot of their settings: the holder
 * of the one volatile reference that a refresh would swap.
 *
 * <p>A bean is retried unless {@code inference.retry.clients.<name>.enabled} is {@code false} or it is
 * the target of a scoped proxy. A bean whose object is a {@link RetryClient} already is left as it is,
 * needs no settings and is described by its own name and policy. Entries under
 * {@code inference.retry.clients} are matched by {@link ClientEntries}; each bean's settings are
 * resolved by {@link BeanRetrySettings#resolve}.
 *
 * <p>Validation does not depend on the order beans are made, nor on {@code @Lazy}: first from the bean
 * definitions, nothing made; then, once every eager singleton exists ({@link #afterSingletonsInstantiated}),
 * for the products of raw {@code FactoryBean}s, and by making each {@code @Lazy} bean without valid
 * settings that is declared as a type a {@code RetryClient} could be, so that it fails startup unless it
 * is one. Trap: a bean found only when it is made (registered late) is resolved then, by the same rules.
 *
 * <p>Public for the runtime refresh ({@code dev.inference.retry.autoconfigure.refresh}), which reads and
 * replaces what it holds; not for applications, which read the retried beans from the endpoint.
 */
public final class RetriedClients implements SmartInitializingSingleton {

    /** The properties in force: those bound at startup, then those of the last refresh applied. */
    private volatile InferenceRetryProperties properties;

    private final ConfigurableListableBeanFactory beanFactory;

    /** The types, besides {@code InferenceClient}, whose beans are retried or known. */
    private final List<RetriedBeanType> types;

    /** Every bean of a retried type found at startup, retried or not, in the order found. */
    private final List<String> found = new CopyOnWriteArrayList<>();

    /** The settings of every bean to retry; replaced whole, never changed in place. */
    private volatile RetrySettings settings = RetrySettings.empty();

    /** The beans without valid settings that need none if their object is a {@code RetryClient}. */
    private final Map<String, InvalidRetryPropertyException> unresolved = new ConcurrentHashMap<>();

    /** The one retry budget of each bean that has one: state, beside the settings. */
    private final Map<String, RetryBudget> budgets = new ConcurrentHashMap<>();

    /** Each bean retried by a retrier made here or its own, as its listeners see it; in the order made. */
    private final Map<String, Retrying> made = Collections.synchronizedMap(new LinkedHashMap<>());

    /** The retriers made here, by bean name: those a refresh gives new settings. */
    private final Map<String, Retrier> retriers = Collections.synchronizedMap(new LinkedHashMap<>());

    /** The beans whose retries a refresh switched off, until one switches them on again. */
    private volatile Set<String> switchedOff = Set.of();

    /** The last refresh, applied or refused, or {@code null} before the first. */
    private volatile @Nullable RefreshOutcome lastRefresh;

    private RetriedClients(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory,
            List<RetriedBeanType> types) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.types = List.copyOf(types);
    }

    /**
     * Finds the beans to retry in the bean definitions of a bean factory and validates their settings:
     * the first of the two steps of validation.
     *
     * @param properties the bound properties
     * @param beanFactory the bean factory whose definitions to read; no bean is created
     * @param types the types, besides {@code InferenceClient}, whose beans are retried or known
     * @return the beans to retry with their settings
     * @throws InvalidRetryPropertyException for the first entry under {@code inference.retry.clients}
     *     that names no bean of those types (nor a bean whose type is known only once it is made), or
     *     else for the first bean declared as a type that cannot be a {@code RetryClient} without
     *     complete, valid settings
     */
    static RetriedClients resolve(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory,
            List<RetriedBeanType> types) {
        RetriedClients clients = new RetriedClients(properties, beanFactory, types);
        List<String> names = clients.beanNamesOf(InferenceClient.class);
        clients.types.stream().filter(RetriedBeanType::isRetried).forEach((type) -> clients.beanNamesOf(type.type())
            .stream()
            .filter((name) -> !names.contains(name))
            .forEach(names::add));
        clients.found.addAll(names);
        clients.validateClientEntries(false);
        names.forEach(clients::resolveFound);
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
     * Checks that every entry under {@code inference.retry.clients} names a bean found or left alone.
     *
     * @param allowFactoryBeanInit whether a {@code FactoryBean} may be made to tell its product's type
     */
    private void validateClientEntries(boolean allowFactoryBeanInit) {
        validateClientEntries(this.properties, allowFactoryBeanInit);
    }

    private void validateClientEntries(InferenceRetryProperties candidate, boolean allowFactoryBeanInit) {
        Set<String> known = new LinkedHashSet<>(this.found);
        this.types.stream()
            .filter((type) -> !type.isRetried())
            .forEach((type) -> known.addAll(beanNamesOf(type.type())));
        ClientEntries.validate(candidate, known, (entry) -> isOfUnknownType(entry, allowFactoryBeanInit), kinds());
    }

    private boolean isEnabled(String beanName) {
        return isEnabled(this.properties, beanName);
    }

    /**
     * Tells whether properties leave a bean's retries on: {@code inference.retry.clients.<name>.enabled}
     * is not {@code false}.
     *
     * @param properties the properties
     * @param beanName the bean's name
     * @return {@code true} unless its entry switches it off
     */
    public static boolean isEnabled(InferenceRetryProperties properties, String beanName) {
        return ClientEntries.entryFor(properties, beanName).map(properties.getClients()::get)
            .map(InferenceRetryProperties.Client::isEnabled)
            .orElse(true);
    }

    /** Resolves a bean's settings and adds them to the snapshot. */
    private BeanRetrySettings resolveSettings(String beanName) {
        BeanRetrySettings resolved;
        try {
            String entry = ClientEntries.entryFor(this.properties, beanName).orElse(null);
            resolved = BeanRetrySettings.resolve(beanName, entry, this.properties);
        }
        catch (InvalidRetryPropertyException ex) {
            throw ex.ofKind(kind(beanName));
        }
        synchronized (this) {
            this.settings = this.settings.with(resolved);
        }
        return resolved;
    }

    /**
     * Names a bean as the startup report does: {@code InferenceClient}, or the retried type it is one of.
     *
     * @param beanName the bean's name
     * @return its kind
     */
    public String kind(String beanName) {
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

    /** Resolves the settings of a bean found, or leaves the bean to its object when that may decide. */
    private void resolveFound(String name) {
        Class<?> type = this.beanFactory.getType(name, false);
        if (!isEnabled(name) || (type != null && RetryClient.class.isAssignableFrom(type))) {
            return;
        }
        try {
            resolveSettings(name);
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
            if (ClientEntries.sameName(entry, name) && this.beanFactory.getType(name, allowFactoryBeanInit) == null) {
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
     * again. Then each bean left to its object that has no valid settings is made, unless it is made
     * already, so that it fails startup unless it is a {@code RetryClient}.
     *
     * @throws InvalidRetryPropertyException for an entry under {@code inference.retry.clients} that
     *     names no {@code InferenceClient} bean, or a bean found now without complete, valid settings
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
        validateClientEntries(true);
        factoryMade.forEach(this::resolveFound);
        for (String name : this.found) {
            if (this.unresolved.containsKey(name) && !this.made.containsKey(name)) {
                this.beanFactory.getBean(name);
            }
        }
    }

    /**
     * Returns the settings to retry a bean with, whose object is not a {@code RetryClient}.
     *
     * <p>A bean that was not found at startup (made before the second step of validation found it,
     * or registered later) has its settings resolved now, by the same rules.
     *
     * @param beanName the name of a bean of a retried type
     * @return the settings, or empty when the bean is not to be retried (switched off, or not a named
     *     bean of the factory, such as an inner bean)
     * @throws InvalidRetryPropertyException when the bean has no complete, valid settings
     */
    Optional<BeanRetrySettings> settingsFor(String beanName) {
        Optional<BeanRetrySettings> resolved = this.settings.of(beanName);
        if (resolved.isPresent()) {
            return resolved;
        }
        InvalidRetryPropertyException unresolvedSettings = this.unresolved.get(beanName);
        if (unresolvedSettings != null) {
            throw unresolvedSettings;
        }
        if (this.found.contains(beanName) || !isEnabled(beanName) || !this.beanFactory.containsBean(beanName)
                || this.properties.getFallbacks().containsKey(beanName)) {
            return Optional.empty();
        }
        return Optional.of(resolveSettings(beanName));
    }

    /**
     * Returns the snapshot of every retried bean's settings.
     *
     * @return the snapshot in force
     */
    public RetrySettings settings() {
        return this.settings;
    }

    /**
     * Returns the retry budget of a bean: one bucket per bean, made at the first call.
     *
     * @param settings the bean's settings
     * @return the budget, or empty when the bean has none
     */
    Optional<RetryBudget> budgetFor(BeanRetrySettings settings) {
        BeanRetrySettings.Budget budget = settings.budget();
        return (budget != null)
                ? Optional.of(this.budgets.computeIfAbsent(settings.beanName(), (name) -> budget.newBucket()))
                : Optional.empty();
    }

    /**
     * Records the retrying client that the application context holds for a bean whose object is a
     * {@code RetryClient} already: it is described by its own name and policy.
     *
     * @param beanName the name of the bean
     * @param client the bean's own retrying client
     */
    void made(String beanName, RetryClient client) {
        synchronized (this) {
            this.settings = this.settings.without(beanName);
        }
        describe(beanName, client.retrier());
    }

    /**
     * Records the retrier with which a bean is retried.
     *
     * @param beanName the name of the bean
     * @param retrier its retrier
     */
    void made(String beanName, Retrier retrier) {
        if (describe(beanName, retrier)) {
            this.retriers.put(beanName, retrier);
        }
    }

    private boolean describe(String beanName, Retrier retrier) {
        if (isEnabled(beanName) && this.beanFactory.containsBean(beanName)) {
            this.made.put(beanName, new Retrying(retrier.name(), retrier.policy(), retrier.budget().orElse(null),
                    retrier.cooldownKey(), retrier.timeouts()));
            return true;
        }
        return false;
    }

    /**
     * Returns the properties in force: those bound at startup, then those of the last refresh applied.
     *
     * @return the properties; never changed in place by this class
     */
    public InferenceRetryProperties properties() {
        return this.properties;
    }

    /**
     * Replaces the properties bean with a copy of what it held, bound the same way, so that changes
     * made to the bean in place later (Spring Cloud re-binds it) are not read here.
     *
     * @param copy the copy
     */
    public void detach(InferenceRetryProperties copy) {
        this.properties = copy;
    }

    /**
     * Returns every bean of a retried type found, retried or not.
     *
     * @return their names, in the order found
     */
    public List<String> found() {
        return List.copyOf(this.found);
    }

    /**
     * Returns the retriers made for the beans (not the beans' own {@code RetryClient}s), which a refresh
     * gives new settings.
     *
     * @return a copy, by bean name, in the order made
     */
    public Map<String, Retrier> retriers() {
        synchronized (this.retriers) {
            return new LinkedHashMap<>(this.retriers);
        }
    }

    /**
     * Returns the budget buckets in force, by bean name.
     *
     * @return a copy
     */
    public Map<String, RetryBudget> budgets() {
        return new LinkedHashMap<>(this.budgets);
    }

    /**
     * Checks the entries under {@code inference.retry.clients} of other properties, as startup checked
     * those it bound: each must name exactly one bean found.
     *
     * @param candidate the properties to check
     * @throws InvalidRetryPropertyException as {@link #resolve} throws it, with the same words
     */
    public void validateClientEntries(InferenceRetryProperties candidate) {
        validateClientEntries(candidate, false);
    }

    /**
     * Puts the result of a refresh in force: its properties, its settings snapshot (one volatile write),
     * its budgets and the beans it switched off. The retriers were given their settings just before.
     *
     * @param properties the properties bound by the refresh
     * @param settings every retried bean's settings, the beans switched off left out
     * @param budgets each bean's budget bucket, by bean name
     * @param off the beans whose retries are switched off
     */
    public synchronized void apply(InferenceRetryProperties properties, RetrySettings settings, Map<String, RetryBudget> budgets,
            Set<String> off) {
        this.properties = properties;
        this.budgets.keySet().retainAll(budgets.keySet());
        this.budgets.putAll(budgets);
        this.switchedOff = Set.copyOf(off);
        this.settings = settings;
    }

    /**
     * Returns the beans whose retries a refresh switched off.
     *
     * @return their names
     */
    public Set<String> switchedOff() {
        return this.switchedOff;
    }

    /**
     * Records how the last refresh ended, for the endpoint.
     *
     * @param outcome the outcome
     */
    public void refreshed(RefreshOutcome outcome) {
        this.lastRefresh = outcome;
    }

    /**
     * Returns how the last refresh ended.
     *
     * @return the outcome, or empty when the configuration was never refreshed
     */
    Optional<RefreshOutcome> lastRefresh() {
        return Optional.ofNullable(this.lastRefresh);
    }

    /**
     * Returns every retried client as the snapshot describes it, under the name its retrier reports
     * once it is made, and the beans whose object is a {@code RetryClient} of their own, read from the
     * client itself once it is made (its policy is known only then).
     *
     * @return an unmodifiable map from bean name to client, in bean registration order, then the
     *     beans found later in the order they were made
     */
    Map<String, Retrying> clients() {
        Map<String, Retrying> made;
        synchronized (this.made) {
            made = new LinkedHashMap<>(this.made);
        }
        RetrySettings snapshot = this.settings;
        Set<String> names = new LinkedHashSet<>(this.found);
        names.addAll(made.keySet());
        names.removeAll(this.switchedOff);
        Map<String, Retrying> clients = new LinkedHashMap<>();
        for (String name : names) {
            Retrying retrier = made.get(name);
            snapshot.of(name)
                .map((bean) -> new Retrying((retrier != null) ? retrier.name() : name, bean.policy(),
                        budgetFor(bean).orElse(null), bean.cooldownKey(), bean.timeouts()))
                .or(() -> Optional.ofNullable(retrier))
                .ifPresent((client) -> clients.put(name, client));
        }
        return Collections.unmodifiableMap(clients);
    }

    /**
     * A retrying client as its listeners see it.
     *
     * @param name the client's name, which its events and meters carry
     * @param policy its policy
     * @param budget its retry budget, or {@code null} when it has none
     * @param cooldownKey the provider account whose cool-down it shares, when a store is configured
     */
    record Retrying(String name, Policy policy, @Nullable RetryBudget budget, String cooldownKey, Timeouts timeouts) {
    }
}
