package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The {@code InferenceClient} beans to retry, each with its validated policy, and the retrying
 * clients the application context holds for them.
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
 * <li>Once every eager singleton exists ({@link #afterSingletonsInstantiated()}): each bean left to
 * its object that has no valid policy is made, if it is a {@code @Lazy} singleton not made yet, and
 * fails startup unless it is a {@code RetryClient}. A lazy bean with a valid policy is not made.</li>
 * </ol>
 */
final class RetriedClients implements SmartInitializingSingleton {

    private final InferenceRetryProperties properties;

    private final ConfigurableListableBeanFactory beanFactory;

    /** Every {@code InferenceClient} bean found at startup, retried or not, in registration order. */
    private final List<String> found;

    /** The beans to wrap, each with its policy. */
    private final Map<String, Policy> policies;

    /** The beans without a valid policy that need none if their object is a {@code RetryClient}. */
    private final Map<String, InvalidRetryPropertyException> unresolved;

    /** The retrying client the application context holds for a bean, once it is made; in the order made. */
    private final Map<String, Retrying> made = Collections.synchronizedMap(new LinkedHashMap<>());

    private RetriedClients(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory,
            List<String> found, Map<String, Policy> policies, Map<String, InvalidRetryPropertyException> unresolved) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.found = List.copyOf(found);
        this.policies = Map.copyOf(policies);
        this.unresolved = Map.copyOf(unresolved);
    }

    /**
     * Validates the properties against the {@code InferenceClient} bean definitions of a bean
     * factory: the first of the two steps of validation.
     *
     * @param properties the bound properties
     * @param beanFactory the bean factory whose definitions to read; no bean is created
     * @return the beans to retry with their policies
     * @throws InvalidRetryPropertyException for the first entry under {@code inference.retry.clients}
     *     that names no {@code InferenceClient} bean (nor a bean whose type is known only once it is
     *     made), or else for the first bean declared as a type that cannot be a {@code RetryClient}
     *     without a complete, valid policy
     */
    static RetriedClients resolve(InferenceRetryProperties properties, ConfigurableListableBeanFactory beanFactory) {
        List<String> clients = new ArrayList<>();
        // allowEagerInit = false: find lazy beans and typed FactoryBeans without creating anything.
        for (String name : beanFactory.getBeanNamesForType(InferenceClient.class, true, false)) {
            if (!ScopedProxyUtils.isScopedTarget(name)) {
                clients.add(name);
            }
        }
        for (String name : properties.getClients().keySet()) {
            if (!clients.contains(name) && !isOfUnknownType(beanFactory, name)) {
                throw InvalidRetryPropertyException.unknownClient(name, "inference.retry.clients." + name, clients);
            }
        }
        Map<String, Policy> policies = new LinkedHashMap<>();
        Map<String, InvalidRetryPropertyException> unresolved = new LinkedHashMap<>();
        for (String name : clients) {
            Class<?> type = beanFactory.getType(name, false);
            if (!isEnabled(properties, name) || (type != null && RetryClient.class.isAssignableFrom(type))) {
                continue;
            }
            try {
                policies.put(name, ClientPolicyResolver.resolve(name, properties));
            }
            catch (InvalidRetryPropertyException ex) {
                if (!couldBeARetryClient(type) || !isSingleton(beanFactory, name)) {
                    throw ex;
                }
                unresolved.put(name, ex);
            }
        }
        return new RetriedClients(properties, beanFactory, clients, policies, unresolved);
    }

    /** A bean whose type is known only once it is made, such as a raw {@code FactoryBean}'s product. */
    private static boolean isOfUnknownType(ConfigurableListableBeanFactory beanFactory, String name) {
        return beanFactory.containsBean(name) && beanFactory.getType(name, false) == null;
    }

    /** Whether a bean declared as this type (null when unknown) may turn out to be a RetryClient. */
    private static boolean couldBeARetryClient(@Nullable Class<?> type) {
        return type == null || type.isAssignableFrom(RetryClient.class);
    }

    /** Whether the bean is a singleton, told from its definition so that nothing is made to tell. */
    private static boolean isSingleton(ConfigurableListableBeanFactory beanFactory, String name) {
        return beanFactory.containsBeanDefinition(name) ? beanFactory.getMergedBeanDefinition(name).isSingleton()
                : beanFactory.containsSingleton(name);
    }

    private static boolean isEnabled(InferenceRetryProperties properties, String name) {
        InferenceRetryProperties.@Nullable Client client = properties.getClients().get(name);
        return client == null || client.isEnabled();
    }

    /**
     * The second step of validation, once every eager singleton exists: makes each bean left to its
     * object that has no valid policy, unless it is made already, so that it fails startup unless it
     * is a {@code RetryClient}.
     *
     * @throws RuntimeException what making such a bean threw: an {@link InvalidRetryPropertyException}
     *     (as the cause of a {@code BeanCreationException}) when it is not a {@code RetryClient}
     */
    @Override
    public void afterSingletonsInstantiated() {
        for (String name : this.unresolved.keySet()) {
            if (!this.made.containsKey(name)) {
                this.beanFactory.getBean(name);
            }
        }
    }

    /**
     * Returns the policy to wrap a bean with, whose object is not a {@code RetryClient}.
     *
     * <p>A bean that was not found at startup (a {@code FactoryBean} that does not declare its object
     * type, or a singleton registered later) has its policy resolved now, by the same rules.
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
        if (this.found.contains(beanName) || !isEnabled(this.properties, beanName)
                || !this.beanFactory.containsBean(beanName)) {
            return Optional.empty();
        }
        return Optional.of(ClientPolicyResolver.resolve(beanName, this.properties));
    }

    /**
     * Records the retrying client that the application context holds for a bean: the one it was
     * wrapped in, or its own object when that is a {@code RetryClient} already.
     *
     * @param beanName the name of the bean
     * @param client the retrying client
     */
    void made(String beanName, RetryClient client) {
        if (isEnabled(this.properties, beanName) && this.beanFactory.containsBean(beanName)) {
            this.made.put(beanName, new Retrying(client.name(), client.policy()));
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
                retrying = new Retrying(name, this.policies.get(name));
            }
            if (retrying != null) {
                clients.put(name, retrying);
            }
        }
        return Collections.unmodifiableMap(clients);
    }

    /**
     * A retrying client as its listeners see it.
     *
     * @param name the client's name, which its events and meters carry
     * @param policy its policy
     */
    record Retrying(String name, Policy policy) {
    }
}
