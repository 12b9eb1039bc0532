package dev.inference.retry.autoconfigure.refresh;

import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.autoconfigure.BeanRetriers;
import dev.inference.retry.autoconfigure.RefreshOutcome;
import dev.inference.retry.autoconfigure.RetriedClients;
import dev.inference.retry.autoconfigure.failure.UnknownRetryPropertyFailureAnalyzer;
import dev.inference.retry.autoconfigure.fallback.FallbackChainRegistrar;
import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.autoconfigure.settings.BeanRetrySettings;
import dev.inference.retry.autoconfigure.settings.ClientEntries;
import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.autoconfigure.settings.RetrySettings;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyCaching;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Re-binds and re-validates the whole {@code inference.retry} configuration while the application
 * runs and, when it is valid, puts it in force for every retried bean and every fallback chain (SPEC
 * §13). What asks for a refresh is not this class's: the Spring Cloud Context integration beside it
 * ({@code RetryRefreshListener}) calls {@link #refresh} for an {@code EnvironmentChangeEvent} naming an
 * {@code inference.retry.*} key. Needs nothing of Spring Cloud itself.
 *
 * <p>A refresh is all or nothing. Every bean's settings are resolved with the startup rules and words
 * ({@link BeanRetrySettings#resolve}, {@link ClientEntries}, {@link FallbackChainRegistrar#checkSettings}),
 * and what needs a restart is refused: the top-level {@code enabled}, {@code cooldown.store} and
 * {@code cooldown.namespace}, {@code observations.enabled}, {@code spring-ai.enabled}, the chains and
 * their {@code members} and {@code primary}, an entry naming no bean, and switching on a
 * bean left unwrapped at startup. Only then is every new retrier built and given to the retrier each
 * bean was made with ({@link Retrier#refresh}, one volatile write each), in one pass that cannot fail;
 * the settings snapshot follows in one volatile write. A bean switched off gets a retrier that makes one
 * attempt ({@link BeanRetriers#switchedOff}). A bean whose budget settings are unchanged keeps its bucket
 * and tokens; one whose settings changed gets a new, full bucket, as the bucket of a new configuration
 * starts (SPEC §9).
 *
 * <p>Trap: Spring Cloud re-binds the {@link InferenceRetryProperties} bean in place for every change,
 * a refused one included. Nothing reads that bean after startup: the properties in force are those
 * this class binds, held by {@link RetriedClients} and {@link FallbackChains}.
 */
public final class RetryRefresh {

    /** The prefix of the keys that start a refresh. */
    public static final String PREFIX = "inference.retry.";

    private static final Log logger = LogFactory.getLog(RetryRefresh.class);

    private final Environment environment;

    private final RetriedClients clients;

    private final BeanRetriers retriers;

    private final ObjectProvider<FallbackChains> chains;

    private final Clock clock;

    RetryRefresh(Environment environment, RetriedClients clients, BeanRetriers retriers,
            ObjectProvider<FallbackChains> chains, Clock clock) {
        this.environment = environment;
        this.clients = clients;
        this.retriers = retriers;
        this.chains = chains;
        this.clock = clock;
    }

    /**
     * Makes the refresher of an application's retried beans and chains.
     *
     * @param beanFactory the application's bean factory, whose retry auto-configuration ran
     * @param environment where the configuration is read
     * @return the refresher
     */
    public static RetryRefresh of(ListableBeanFactory beanFactory, Environment environment) {
        RetryRefresh refresh = new RetryRefresh(environment, beanFactory.getBean(RetriedClients.class),
                beanFactory.getBean(BeanRetriers.class), beanFactory.getBeanProvider(FallbackChains.class),
                Clock.systemUTC());
        refresh.detach();
        return refresh;
    }

    /**
     * Gives the retried beans and chains a copy of the properties bound at startup, so that what
     * Spring Cloud re-binds into the properties bean (a refused change included) never reaches them.
     */
    private void detach() {
        InferenceRetryProperties startup = bind();
        this.clients.detach(startup);
        FallbackChains chains = this.chains.getIfAvailable();
        if (chains != null) {
            chains.refresh(startup);
        }
    }

    /**
     * Tells whether a changed key is one of the retry configuration's.
     *
     * @param key a property name, as an {@code EnvironmentChangeEvent} gives it
     * @return {@code true} for {@code inference.retry.*}, however its case and dashes are written
     */
    public static boolean isRetryKey(String key) {
        String normalised = key.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        return normalised.startsWith("inference.retry.") || normalised.equals("inference.retry");
    }

    /**
     * Re-binds, re-validates and, when valid, applies the whole configuration, if any changed key is
     * one of it. A refused refresh is logged once at WARN, with the words of the startup report.
     *
     * @param changedKeys the keys whose values changed
     * @return how it ended, or empty when no key was a retry key (nothing was done)
     */
    public synchronized Optional<RefreshOutcome> refresh(Collection<String> changedKeys) {
        if (changedKeys.stream().noneMatch(RetryRefresh::isRetryKey)) {
            return Optional.empty();
        }
        RefreshOutcome outcome;
        try {
            Applied applied = apply(bind());
            outcome = new RefreshOutcome(this.clock.instant(), true, null);
            logger.info("Refreshed inference.retry: " + applied.beans() + " retried bean(s) and " + applied.chains()
                    + " fallback chain(s) now use it");
        }
        catch (Refused ex) {
            outcome = new RefreshOutcome(this.clock.instant(), false, ex.getMessage());
            logger.warn("Refused a refresh of inference.retry, nothing of it applied (every bean keeps the "
                    + "configuration it had): " + ex.getMessage());
        }
        this.clients.refreshed(outcome);
        return Optional.of(outcome);
    }

    /**
     * Binds the configuration as startup binds it: an unknown key under {@code inference.retry} fails,
     * unless it comes from the system properties or the environment variables, which Boot forgives too.
     */
    private InferenceRetryProperties bind() {
        // The names of every property source are mapped once for the whole bind, not once per field.
        try (ConfigurationPropertyCaching.CacheOverride cached = ConfigurationPropertyCaching.get(this.environment)
            .override()) {
            return Binder.get(this.environment)
                .bindOrCreate("inference.retry", Bindable.of(InferenceRetryProperties.class),
                        new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler(),
                                new UnboundElementsSourceFilter()));
        }
        catch (BindException ex) {
            FailureAnalysis unknown = new UnknownRetryPropertyFailureAnalyzer().analyze(ex);
            if (unknown != null) {
                throw new Refused(unknown.getDescription().strip() + " Action: "
                        + Objects.toString(unknown.getAction(), "").strip());
            }
            ConfigurationProperty property = ex.getProperty();
            Throwable cause = ex;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            String name = (property != null) ? property.getName().toString() : ex.getName().toString();
            Object value = (property != null) ? property.getValue() : null;
            throw new Refused(name + " = " + value + " is invalid: " + cause.getMessage() + ". Action: Change " + name
                    + ".");
        }
    }

    private Applied apply(InferenceRetryProperties fresh) {
        InferenceRetryProperties inForce = this.clients.properties();
        checkRestartOnly(inForce, fresh);
        Map<String, Retrier> made = this.clients.retriers();
        RetrySettings before = this.clients.settings();
        Map<String, RetryBudget> budgets = this.clients.budgets();
        Map<String, BeanRetrySettings> resolved = new LinkedHashMap<>();
        Set<String> off = new LinkedHashSet<>();
        Set<String> names = new LinkedHashSet<>(before.beans().keySet());
        names.addAll(made.keySet());
        names.addAll(this.clients.switchedOff());
        for (String name : names) {
            if (!RetriedClients.isEnabled(fresh, name)) {
                off.add(name);
                continue;
            }
            try {
                String entry = ClientEntries.entryFor(fresh, name).orElse(null);
                resolved.put(name, BeanRetrySettings.resolve(name, entry, fresh));
            }
            catch (InvalidRetryPropertyException ex) {
                throw Refused.of(ex.ofKind(this.clients.kind(name)));
            }
        }
        Map<String, RetryBudget> newBudgets = new LinkedHashMap<>();
        resolved.forEach((name, settings) -> {
            BeanRetrySettings.Budget budget = settings.budget();
            if (budget != null) {
                boolean same = before.of(name).map(BeanRetrySettings::budget).filter(budget::equals).isPresent();
                RetryBudget bucket = same ? budgets.get(name) : null;
                newBudgets.put(name, (bucket != null) ? bucket : budget.newBucket());
            }
        });
        // Everything is valid: build every retrier first, then hand them over, where nothing can fail.
        Map<String, Retrier> next = new LinkedHashMap<>();
        made.forEach((name, retrier) -> {
            BeanRetrySettings settings = resolved.get(name);
            next.put(name, (settings != null) ? this.retriers.build(settings, newBudgets.get(name))
                    : this.retriers.switchedOff(name, retrier.policy()));
        });
        made.forEach((name, retrier) -> retrier.refresh(Objects.requireNonNull(next.get(name))));
        this.clients.apply(fresh, new RetrySettings(resolved), newBudgets, off);
        FallbackChains chains = this.chains.getIfAvailable();
        if (chains != null) {
            chains.refresh(fresh);
        }
        return new Applied(made.size(), fresh.getFallbacks().size());
    }

    /** Refuses what only a restart can change, and what startup would have refused. */
    private void checkRestartOnly(InferenceRetryProperties inForce, InferenceRetryProperties fresh) {
        same("enabled", inForce, fresh, InferenceRetryProperties::isEnabled,
                "which beans are wrapped is decided at startup");
        same("cooldown.store", inForce, fresh, (properties) -> storeName(properties),
                "the cool-down store is made at startup");
        same("cooldown.namespace", inForce, fresh, (properties) -> properties.getCooldown().getNamespace(),
                "the cool-down store is made at startup with its namespace");
        same("observations.enabled", inForce, fresh, (properties) -> properties.getObservations().isEnabled(),
                "the observer of attempts is set when each bean's retrier is made");
        same("spring-ai.enabled", inForce, fresh, (properties) -> properties.getSpringAi().isEnabled(),
                "the Spring AI models are rebuilt on retrying clients at startup");
        checkChains(inForce.getFallbacks(), fresh.getFallbacks());
        try {
            this.clients.validateClientEntries(fresh);
        }
        catch (InvalidRetryPropertyException ex) {
            throw Refused.of(ex);
        }
        Map<String, Retrier> made = this.clients.retriers();
        for (String name : this.clients.found()) {
            // Switched off at startup, the bean was left as it is: no retrier of it exists to switch on.
            if (!made.containsKey(name) && !RetriedClients.isEnabled(inForce, name)
                    && RetriedClients.isEnabled(fresh, name)) {
                throw restart(clientProperty(fresh, name) + ".enabled", true,
                        "bean '" + name + "' was left unwrapped at startup");
            }
        }
    }

    private void checkChains(Map<String, FallbackChainProperties> inForce, Map<String, FallbackChainProperties> fresh) {
        Set<String> added = new LinkedHashSet<>(fresh.keySet());
        added.removeAll(inForce.keySet());
        Set<String> removed = new LinkedHashSet<>(inForce.keySet());
        removed.removeAll(fresh.keySet());
        if (!added.isEmpty() || !removed.isEmpty()) {
            String chain = !added.isEmpty() ? added.iterator().next() : removed.iterator().next();
            throw restart("fallbacks." + chain, !added.isEmpty() ? "a new chain" : "(removed)",
                    "each chain is a bean registered at startup");
        }
        for (Map.Entry<String, FallbackChainProperties> entry : fresh.entrySet()) {
            String chain = entry.getKey();
            FallbackChainProperties now = entry.getValue();
            FallbackChainProperties then = Objects.requireNonNull(inForce.get(chain));
            if (!now.getMembers().equals(then.getMembers())) {
                throw restart("fallbacks." + chain + ".members", now.getMembers(),
                        "a chain's members are its bean's dependencies, fixed at startup");
            }
            if (now.isPrimary() != then.isPrimary()) {
                throw restart("fallbacks." + chain + ".primary", now.isPrimary(),
                        "the primary bean of a type is chosen at startup");
            }
            try {
                FallbackChainRegistrar.checkSettings(chain, now, fresh.keySet());
            }
            catch (InvalidRetryPropertyException ex) {
                throw Refused.of(ex);
            }
        }
    }

    private static <T> void same(String property, InferenceRetryProperties inForce, InferenceRetryProperties fresh,
            Function<InferenceRetryProperties, @Nullable T> value, String why) {
        T now = value.apply(fresh);
        if (!Objects.equals(value.apply(inForce), now)) {
            throw restart(property, now, why);
        }
    }

    private static @Nullable String storeName(InferenceRetryProperties properties) {
        InferenceRetryProperties.CooldownStoreType store = properties.getCooldown().getStore();
        return (store != null) ? store.name().toLowerCase(Locale.ROOT) : null;
    }

    private static Refused restart(String property, @Nullable Object value, String why) {
        String name = property.startsWith(PREFIX) ? property : PREFIX + property;
        String described = (value != null) ? name + " = " + value : name + " (unset)";
        return new Refused(described + " cannot change while the application runs: " + why
                + ". Action: Restart the application to change " + name + ", or set it back.");
    }

    private static String clientProperty(InferenceRetryProperties properties, String beanName) {
        return PREFIX + "clients." + ClientEntries.entryFor(properties, beanName).orElse(beanName);
    }

    @Override
    public String toString() {
        return "RetryRefresh[" + this.clients.retriers().keySet() + "]";
    }

    /** What a refresh applied to. */
    private record Applied(int beans, int chains) {
    }

    /** A refresh refused, with the words of the startup report. */
    private static final class Refused extends RuntimeException {

        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }

        static Refused of(InvalidRetryPropertyException ex) {
            return new Refused(ex.getMessage() + ". Action: " + ex.action());
        }
    }
}
