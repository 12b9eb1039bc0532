package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The {@code InferenceClient} beans to retry, each with its validated policy.
 *
 * <p>Resolved once, at startup, from the bean definitions, so that {@code @Lazy} beans are validated
 * before anything asks for them and nothing is instantiated to find them. A bean is retried unless
 * it is declared as a {@link RetryClient} already, it is the target of a scoped proxy (the proxy is
 * retried instead), or {@code inference.retry.clients.<name>.enabled} is {@code false}.
 */
final class RetriedClients {

    private final InferenceRetryProperties properties;

    private final ListableBeanFactory beanFactory;

    /** Every {@code InferenceClient} bean found at startup, retried or not. */
    private final Set<String> found;

    /** Bean name to policy, in bean registration order. */
    private final Map<String, Policy> policies;

    private RetriedClients(InferenceRetryProperties properties, ListableBeanFactory beanFactory, List<String> found,
            Map<String, Policy> policies) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.found = Set.copyOf(found);
        this.policies = Collections.unmodifiableMap(policies);
    }

    /**
     * Validates the properties against the {@code InferenceClient} beans of a bean factory.
     *
     * @param properties the bound properties
     * @param beanFactory the bean factory whose definitions to read; no bean is created
     * @return the beans to retry with their policies
     * @throws InvalidRetryPropertyException for the first entry under {@code inference.retry.clients}
     *     that names no {@code InferenceClient} bean (nor a bean whose type is known only once it is
     *     made), or else for the first bean without a complete,
     *     valid policy
     */
    static RetriedClients resolve(InferenceRetryProperties properties, ListableBeanFactory beanFactory) {
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
        for (String name : clients) {
            if (isEnabled(properties, name) && !isRetryClient(beanFactory, name)) {
                policies.put(name, ClientPolicyResolver.resolve(name, properties));
            }
        }
        return new RetriedClients(properties, beanFactory, clients, policies);
    }

    /** A bean whose type is known only once it is made, such as a raw {@code FactoryBean}'s product. */
    private static boolean isOfUnknownType(ListableBeanFactory beanFactory, String name) {
        return beanFactory.containsBean(name) && beanFactory.getType(name, false) == null;
    }

    private static boolean isEnabled(InferenceRetryProperties properties, String name) {
        InferenceRetryProperties.@Nullable Client client = properties.getClients().get(name);
        return client == null || client.isEnabled();
    }

    private static boolean isRetryClient(ListableBeanFactory beanFactory, String name) {
        Class<?> type = beanFactory.getType(name, false);
        return type != null && RetryClient.class.isAssignableFrom(type);
    }

    /**
     * Returns the policy to wrap a bean with.
     *
     * <p>A bean that was not found at startup (a {@code FactoryBean} that does not declare its object
     * type, or a singleton registered later) has its policy resolved now, by the same rules.
     *
     * @param beanName the name of an {@code InferenceClient} bean
     * @return the policy, or empty when the bean is not to be wrapped (switched off, or not a named
     *     bean of the factory, such as an inner bean)
     * @throws InvalidRetryPropertyException when a bean found only now has no complete, valid policy
     */
    Optional<Policy> policyFor(String beanName) {
        Policy policy = this.policies.get(beanName);
        if (policy != null) {
            return Optional.of(policy);
        }
        if (this.found.contains(beanName) || !isEnabled(this.properties, beanName)
                || !this.beanFactory.containsBean(beanName)) {
            return Optional.empty();
        }
        return Optional.of(ClientPolicyResolver.resolve(beanName, this.properties));
    }

    /**
     * Returns the beans to retry and their policies.
     *
     * @return an unmodifiable map from bean name to policy, in bean registration order
     */
    Map<String, Policy> policies() {
        return this.policies;
    }
}
