package dev.inference.retry.autoconfigure.fallback;

import dev.inference.client.InferenceClient;
import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.fallback.FallbackChain;
import dev.inference.retry.fallback.FallbackClient;
import dev.inference.retry.fallback.FallbackListener;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * Makes the fallback chains that {@link FallbackChainRegistrar} registered, from their settings and
 * member beans, and keeps every chain made, for the {@code inferenceretry} endpoint. The bean of this
 * class is named {@value #BEAN_NAME}; its {@link #inferenceClient(String)} is the factory method of
 * {@code InferenceClient} chains, and a kind of member of another library (Spring AI's chat models)
 * builds its chains' rules with {@link #rules}.
 */
public final class FallbackChains {

    /** The name of this class's bean. */
    public static final String BEAN_NAME = "inferenceRetryFallbackChains";

    private final BeanFactory beanFactory;

    /** The properties in force: those bound at startup, then those of the last refresh applied. */
    private volatile InferenceRetryProperties properties;

    /** The cool-down key of each member bean that sets one, from the properties in force. */
    private volatile Map<String, String> cooldownKeys;

    private final ObjectProvider<FallbackListener> listeners;

    private final Clock clock;

    private final ObjectProvider<CooldownStore> cooldownStore;

    private final Map<String, FallbackChain> made = Collections.synchronizedMap(new LinkedHashMap<>());

    /**
     * Creates the factory.
     *
     * @param beanFactory where the members are
     * @param properties the chains' settings
     * @param listeners told of every chain's fall-overs and calls, such as its meters
     * @param cooldownStore the cool-down store, when one is configured
     */
    public FallbackChains(BeanFactory beanFactory, InferenceRetryProperties properties,
            ObjectProvider<FallbackListener> listeners, ObjectProvider<CooldownStore> cooldownStore) {
        this(beanFactory, properties, listeners, cooldownStore, Clock.systemUTC());
    }

    FallbackChains(BeanFactory beanFactory, InferenceRetryProperties properties,
            ObjectProvider<FallbackListener> listeners, ObjectProvider<CooldownStore> cooldownStore, Clock clock) {
        this.beanFactory = beanFactory;
        this.properties = properties;
        this.listeners = listeners;
        this.cooldownStore = cooldownStore;
        this.clock = clock;
        this.cooldownKeys = cooldownKeys(properties);
    }

    /**
     * Makes the chain of {@code InferenceClient} members of that name.
     *
     * @param chain the chain's name
     * @return the chain, whose members are the (retrying) member beans
     */
    public FallbackClient inferenceClient(String chain) {
        FallbackChainProperties settings = settings(chain);
        FallbackClient.Builder builder = FallbackClient.builder(chain).clock(this.clock);
        for (String member : settings.getMembers()) {
            builder.member(member, this.beanFactory.getBean(member, InferenceClient.class));
        }
        settings.getModels().forEach(builder::model);
        Integer skipAfter = settings.getSkipAfter();
        Duration skipFor = settings.getSkipFor();
        if (skipAfter != null && skipFor != null) {
            builder.skip(skipAfter, skipFor);
        }
        this.listeners.orderedStream().forEach(builder::listener);
        FallbackClient client = builder.build();
        this.made.put(chain, client.chain());
        return client;
    }

    /**
     * Makes the rules of a chain whose members are of another kind, and keeps them for the endpoint.
     *
     * @param chain the chain's name
     * @param cooling how long each member's provider account still cools down, by member name
     * @return the rules: the members in order, the skip rule, the listeners
     */
    public FallbackChain rules(String chain, Function<String, Supplier<Duration>> cooling) {
        FallbackChainProperties settings = settings(chain);
        FallbackChain.Builder builder = FallbackChain.builder(chain).clock(this.clock);
        for (String member : settings.getMembers()) {
            builder.member(member, cooling.apply(member));
        }
        Integer skipAfter = settings.getSkipAfter();
        Duration skipFor = settings.getSkipFor();
        if (skipAfter != null && skipFor != null) {
            builder.skip(skipAfter, skipFor);
        }
        this.listeners.orderedStream().forEach(builder::listener);
        FallbackChain rules = builder.build();
        rules.useModels(settings.getModels());
        this.made.put(chain, rules);
        return rules;
    }

    /**
     * Returns how long a member bean's provider account still cools down, for a member whose retries
     * happen beneath its bean (so that no retrier of it is at hand): the cool-down store's remaining
     * time for the bean's key ({@code inference.retry.clients.<bean>.cooldown-key}, or the bean's name).
     *
     * @param member the member's bean name
     * @return the probe; always zero without a cool-down store
     */
    public Supplier<Duration> coolingOf(String member) {
        CooldownStore store = this.cooldownStore.getIfAvailable();
        if (store == null) {
            return () -> Duration.ZERO;
        }
        return () -> store.remaining(this.cooldownKeys.getOrDefault(member, member));
    }

    /** The cool-down key of each bean whose entry sets one, by the bean's name as its entry writes it. */
    private Map<String, String> cooldownKeys(InferenceRetryProperties properties) {
        Map<String, String> keys = new HashMap<>();
        for (FallbackChainProperties chain : properties.getFallbacks().values()) {
            for (String member : chain.getMembers()) {
                ConfigurationPropertyName name = ConfigurationPropertyName.adapt(member, '.');
                properties.getClients().forEach((entry, client) -> {
                    String configured = client.getCooldownKey();
                    if (configured != null && ConfigurationPropertyName.adapt(entry, '.').equals(name)) {
                        keys.put(member, configured);
                    }
                });
            }
        }
        return Map.copyOf(keys);
    }

    /**
     * Puts the settings of a refresh in force for every chain: each chain made takes its new skip rule
     * (its members keep their skip state) and its members' model names at once, and the members'
     * cool-down keys are read from the new properties. The members of each chain and its
     * {@code primary} are those of startup: a refresh that changes them is refused before it reaches
     * here.
     *
     * @param properties the properties of the refresh, valid
     */
    public void refresh(InferenceRetryProperties properties) {
        this.properties = properties;
        this.cooldownKeys = cooldownKeys(properties);
        synchronized (this.made) {
            this.made.forEach((name, chain) -> {
                FallbackChainProperties settings = properties.getFallbacks().get(name);
                Integer skipAfter = (settings != null) ? settings.getSkipAfter() : null;
                Duration skipFor = (settings != null) ? settings.getSkipFor() : null;
                if (skipAfter != null && skipFor != null) {
                    chain.refreshSkip(skipAfter, skipFor);
                }
                else {
                    chain.refreshNoSkip();
                }
                chain.useModels((settings != null) ? settings.getModels() : Map.of());
            });
        }
    }

    /**
     * Returns a chain's settings.
     *
     * @param chain the chain's name
     * @return its settings under {@code inference.retry.fallbacks.<chain>}
     * @throws IllegalArgumentException if no chain of that name is declared
     */
    public FallbackChainProperties settings(String chain) {
        FallbackChainProperties settings = this.properties.getFallbacks().get(chain);
        if (settings == null) {
            throw new IllegalArgumentException("No fallback chain '" + chain + "' is declared under "
                    + "inference.retry.fallbacks");
        }
        return settings;
    }

    /**
     * Describes every chain declared, with which members are skipped now and until when; a chain
     * whose bean is not made yet (a lazy one) is described from its settings alone.
     *
     * @return the chains, keyed by name, in the order declared
     */
    public Map<String, ChainDescriptor> describe() {
        Map<String, ChainDescriptor> chains = new LinkedHashMap<>();
        this.properties.getFallbacks().forEach((name, settings) -> {
            FallbackChain chain = this.made.get(name);
            List<MemberDescriptor> members = (chain != null)
                    ? chain.status().stream().map((status) -> new MemberDescriptor(status.member(), status.skipped(),
                            status.skippedUntil().map(Object::toString).orElse(null),
                            status.coolingUntil().map(Object::toString).orElse(null))).toList()
                    : settings.getMembers().stream().map((member) -> new MemberDescriptor(member, false, null, null))
                        .toList();
            chains.put(name, new ChainDescriptor(List.copyOf(settings.getMembers()), settings.isPrimary(), members));
        });
        return chains;
    }

    @Override
    public String toString() {
        return "FallbackChains" + this.properties.getFallbacks().keySet();
    }

    /**
     * One chain, as the endpoint shows it.
     *
     * @param members the members' bean names, in order
     * @param primary whether the chain is the primary bean of its type
     * @param status each member, skipped or not
     */
    public record ChainDescriptor(List<String> members, boolean primary, List<MemberDescriptor> status) {
    }

    /**
     * One member of a chain now.
     *
     * @param member the member's bean name
     * @param skipped whether a call would pass over it now
     * @param skippedUntil when the chain's skip-after rule lets it go, ISO-8601, or {@code null}
     * @param coolingUntil when its provider account's cool-down ends, ISO-8601, or {@code null}
     */
    public record MemberDescriptor(String member, boolean skipped, @Nullable String skippedUntil,
            @Nullable String coolingUntil) {
    }
}
