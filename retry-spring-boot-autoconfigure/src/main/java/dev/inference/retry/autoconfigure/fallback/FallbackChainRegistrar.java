package dev.inference.retry.autoconfigure.fallback;

import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Registers a bean for each chain declared under {@code inference.retry.fallbacks}, once every
 * configuration's beans are defined and before any bean is made, after checking the chain's settings
 * against the bean definitions. A chain's bean has its members' type (made by the factory method of
 * its {@link FallbackMemberKind}), depends on its members, and is {@code @Primary} when
 * {@code primary} is set.
 *
 * <p>Startup fails with an {@link InvalidFallbackPropertyException}, naming the property, when a chain
 * has fewer than two members or names one twice; a member is itself a chain, or names no bean of a
 * kind chains accept; the members' kinds differ; {@code skip-after} or {@code skip-for} is set alone
 * or is not positive; a {@code models} entry names no member; or the chain's name is an existing
 * bean's.
 *
 * <p>Trap: in an application run from its ahead-of-time processed form the chains were registered at
 * build time, so this does nothing then.
 */
public final class FallbackChainRegistrar implements BeanDefinitionRegistryPostProcessor {

    private static final String PREFIX = "inference.retry.fallbacks.";

    private final Environment environment;

    private final List<FallbackMemberKind> kinds;

    /**
     * Creates the registrar with the kinds of member listed in {@code META-INF/spring.factories}.
     *
     * @param environment where the chains are declared
     */
    public FallbackChainRegistrar(Environment environment) {
        this(environment, loadKinds());
    }

    FallbackChainRegistrar(Environment environment, List<FallbackMemberKind> kinds) {
        this.environment = environment;
        this.kinds = List.copyOf(kinds);
    }

    private static List<FallbackMemberKind> loadKinds() {
        List<FallbackMemberKind> kinds = new ArrayList<>();
        for (FallbackMemberKind kind : SpringFactoriesLoader
            .forDefaultResourceLocation(FallbackChainRegistrar.class.getClassLoader())
            .load(FallbackMemberKind.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
                // A kind that cannot be made is left out, as one whose library is absent.
            }))) {
            try {
                kind.memberType();
                kinds.add(kind);
            }
            catch (LinkageError absent) {
                // Its member type's library (Spring AI, for ChatModel chains) is not on the class path.
            }
        }
        return kinds;
    }

    /**
     * Reads the chains as the binder would.
     *
     * @param environment where they are declared
     * @return the chains' settings, keyed by chain name, in the order declared
     */
    static Map<String, FallbackChainProperties> chains(Environment environment) {
        return Binder.get(environment)
            .bind("inference.retry.fallbacks", Bindable.mapOf(String.class, FallbackChainProperties.class))
            .map((Map<String, FallbackChainProperties> bound) -> (Map<String, FallbackChainProperties>) new LinkedHashMap<>(bound))
            .orElseGet(LinkedHashMap::new);
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        if (AotDetector.useGeneratedArtifacts() || !(registry instanceof ConfigurableListableBeanFactory beanFactory)) {
            return;
        }
        Map<String, FallbackChainProperties> chains = chains(this.environment);
        for (Map.Entry<String, FallbackChainProperties> chain : chains.entrySet()) {
            String name = chain.getKey();
            FallbackChainProperties settings = chain.getValue();
            checkSettings(name, settings, chains.keySet());
            if (beanFactory.containsBean(name)) {
                throw new InvalidFallbackPropertyException(name, PREFIX + name, null,
                        "a chain's name is the name of its bean, and a bean named '" + name + "' exists already",
                        "Rename the chain under " + PREFIX + name + ", or the bean '" + name + "'.");
            }
            FallbackMemberKind kind = kindOf(name, settings.getMembers(), beanFactory);
            RootBeanDefinition definition = new RootBeanDefinition();
            definition.setFactoryBeanName(kind.factoryBeanName());
            definition.setFactoryMethodName(kind.factoryMethodName());
            definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
            definition.setTargetType(kind.chainType());
            definition.setDependsOn(settings.getMembers().toArray(String[]::new));
            definition.setPrimary(settings.isPrimary());
            registry.registerBeanDefinition(name, definition);
        }
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }

    /**
     * Checks a chain's settings as startup does, with the checks that need no bean definitions: its
     * members (at least two, each named once, none a chain), its skip rule and its {@code models}.
     *
     * @param chain the chain's name
     * @param settings its settings
     * @param chains the names of every chain declared
     * @throws InvalidFallbackPropertyException naming the property, the value and the rule broken
     */
    public static void checkSettings(String chain, FallbackChainProperties settings, Set<String> chains) {
        List<String> members = settings.getMembers();
        String membersProperty = PREFIX + chain + ".members";
        if (members.size() < 2) {
            throw new InvalidFallbackPropertyException(chain, membersProperty, members.isEmpty() ? null : members,
                    "a chain needs at least two members", "Set " + membersProperty
                            + " to the bean names of two or more models, in the order a call tries them.");
        }
        Set<String> seen = new HashSet<>();
        for (String member : members) {
            if (!seen.add(member)) {
                throw new InvalidFallbackPropertyException(chain, membersProperty, members,
                        "a chain names each member once, and '" + member + "' is named twice",
                        "Remove the second '" + member + "' from " + membersProperty + ".");
            }
            if (chains.contains(member)) {
                throw new InvalidFallbackPropertyException(chain, membersProperty, members,
                        "a member cannot be a chain, and '" + member + "' is one",
                        "Name the members of chain '" + member + "' in " + membersProperty + " instead.");
            }
        }
        Integer skipAfter = settings.getSkipAfter();
        Duration skipFor = settings.getSkipFor();
        String skipAfterProperty = PREFIX + chain + ".skip-after";
        String skipForProperty = PREFIX + chain + ".skip-for";
        if ((skipAfter == null) != (skipFor == null)) {
            String set = (skipAfter != null) ? skipAfterProperty : skipForProperty;
            String unset = (skipAfter != null) ? skipForProperty : skipAfterProperty;
            throw new InvalidFallbackPropertyException(chain, unset, null,
                    "skip-after and skip-for are set together, or not at all, and " + set + " is set",
                    "Set " + unset + " too, or remove " + set + ".");
        }
        if (skipAfter != null && skipAfter < 1) {
            throw new InvalidFallbackPropertyException(chain, skipAfterProperty, skipAfter, "must be at least 1",
                    "Set " + skipAfterProperty + " to the calls in a row that fell over after which a member is skipped.");
        }
        if (skipFor != null && (skipFor.isNegative() || skipFor.isZero())) {
            throw new InvalidFallbackPropertyException(chain, skipForProperty, skipFor, "must be positive",
                    "Set " + skipForProperty + " to how long such a member is skipped, such as 30s.");
        }
        for (Map.Entry<String, String> model : settings.getModels().entrySet()) {
            String property = PREFIX + chain + ".models." + model.getKey();
            if (!members.contains(model.getKey())) {
                throw new InvalidFallbackPropertyException(chain, property, model.getValue(),
                        "must name a member of the chain, one of " + members,
                        "Correct the member's name in " + property + ", or remove it.");
            }
            if (model.getValue().isBlank()) {
                throw new InvalidFallbackPropertyException(chain, property, model.getValue(), "must not be blank",
                        "Set " + property + " to the model name, or remove it.");
            }
        }
    }

    /** The kind of every member, which must be one and the same. */
    private FallbackMemberKind kindOf(String chain, List<String> members, ConfigurableListableBeanFactory beanFactory) {
        String property = PREFIX + chain + ".members";
        FallbackMemberKind first = null;
        String firstMember = null;
        for (String member : members) {
            FallbackMemberKind kind = kindOfBean(member, beanFactory);
            if (kind == null) {
                throw new InvalidFallbackPropertyException(chain, property, members,
                        "every member must name a bean of " + kindNames() + ", and '" + member + "' names none",
                        "Correct '" + member + "' in " + property + ": the bean names of the models to chain.");
            }
            if (first == null) {
                first = kind;
                firstMember = member;
            }
            else if (first != kind) {
                throw new InvalidFallbackPropertyException(chain, property, members,
                        "the members must all be of one kind, and '" + firstMember + "' is of kind "
                                + first.memberType().getSimpleName() + " while '" + member + "' is of kind "
                                + kind.memberType().getSimpleName(),
                        "Make " + property + " name " + first.memberType().getSimpleName() + " beans only, or "
                                + kind.memberType().getSimpleName() + " beans only.");
            }
        }
        return Objects.requireNonNull(first, "first");
    }

    private @Nullable FallbackMemberKind kindOfBean(String name, ConfigurableListableBeanFactory beanFactory) {
        for (FallbackMemberKind kind : this.kinds) {
            for (String candidate : beanFactory.getBeanNamesForType(kind.memberType(), true, false)) {
                if (candidate.equals(name)) {
                    return kind;
                }
            }
        }
        return null;
    }

    private String kindNames() {
        return String.join(" or ", this.kinds.stream().map((kind) -> kind.memberType().getSimpleName()).toList());
    }
}
