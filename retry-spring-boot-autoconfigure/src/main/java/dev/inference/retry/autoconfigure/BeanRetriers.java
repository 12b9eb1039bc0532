package dev.inference.retry.autoconfigure;

import dev.inference.client.AttemptScope;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import dev.inference.retry.autoconfigure.settings.BeanRetrySettings;
import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import dev.inference.retry.cooldown.CooldownStore;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Gives the {@link Retrier} of a retried bean, assembled the one way every retried bean gets it:
 * {@code InferenceClient} beans (wrapped by the auto-configuration) and the beans of every other
 * {@link RetriedBeanType}, such as Spring AI's chat models. The retrier is named after the bean and
 * carries the bean's {@link BeanRetrySettings} (policy, retry budget, and with a cool-down store its
 * key, rate-limit headers and release spread), every {@link RetryListener} bean (of a
 * {@link PerClientRetryListener}, the listener it gives for the bean), then every
 * {@link RetrierCustomizer} bean, in order. Once given, the bean is listed by the
 * {@code inferenceretry} endpoint.
 *
 * <p>Trap: the retrier's {@linkplain Retrier.Builder#sleeper sleeper} is used only by the calls that
 * block; an integration that schedules its waits on a timer ignores it.
 *
 * <p>Thread-safe. Call it once per bean, when the bean is made, and keep the retrier.
 */
public final class BeanRetriers {

    private final ObjectProvider<RetriedClients> clients;

    private final ObjectProvider<RetryListener> listeners;

    private final ObjectProvider<RetrierCustomizer> customizers;

    private final ObjectProvider<CooldownStore> cooldownStore;

    private final AttemptScope.Timer timer;

    BeanRetriers(ObjectProvider<RetriedClients> clients, ObjectProvider<RetryListener> listeners,
            ObjectProvider<RetrierCustomizer> customizers, ObjectProvider<CooldownStore> cooldownStore,
            AttemptScope.Timer timer) {
        this.clients = clients;
        this.listeners = listeners;
        this.customizers = customizers;
        this.cooldownStore = cooldownStore;
        this.timer = timer;
    }

    /**
     * Returns the retrier of a bean.
     *
     * @param beanName the bean's name
     * @return its retrier, or empty when the bean is not to be retried
     *     ({@code inference.retry.clients.<name>.enabled=false}, or not a named bean of the factory)
     * @throws InvalidRetryPropertyException when the bean has no complete, valid settings
     */
    public Optional<Retrier> retrierFor(String beanName) {
        RetriedClients clients = this.clients.getObject();
        return clients.settingsFor(beanName).map((settings) -> {
            Retrier retrier = build(settings, clients);
            clients.made(beanName, retrier);
            return retrier;
        });
    }

    /** Records a bean whose object is a retrying client of the application's own. */
    void ownRetryClient(String beanName, RetryClient client) {
        this.clients.getObject().made(beanName, client);
    }

    private Retrier build(BeanRetrySettings settings, RetriedClients clients) {
        return build(settings, clients.budgetFor(settings).orElse(null));
    }

    /**
     * Builds a bean's retrier from its settings, as at startup, for a refresh to give its settings to
     * the retrier the bean was made with ({@link Retrier#refresh}).
     *
     * @param settings the bean's settings
     * @param budget the bean's budget bucket, or {@code null} when it has none
     * @return a new retrier, named after the bean
     */
    public Retrier build(BeanRetrySettings settings, @Nullable RetryBudget budget) {
        String beanName = settings.beanName();
        Retrier.Builder builder = Retrier.builder(settings.policy())
            .name(beanName)
            .timeouts(settings.timeouts())
            .timer(this.timer);
        this.listeners.orderedStream().forEach((listener) -> builder.listener(forClient(listener, beanName)));
        if (budget != null) {
            builder.budget(budget);
        }
        this.cooldownStore.ifAvailable((store) -> builder.cooldown(store, settings.cooldownKey())
            .honourRateLimits(settings.rateLimitHeaders())
            .cooldownReleaseSpread(settings.cooldownReleaseSpread()));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(beanName, builder));
        return builder.build();
    }

    /**
     * Builds the retrier of a bean whose retries are switched off at run time: one attempt per call,
     * its failure as it is, with no budget, cool-down or timeout; its listeners still hear each attempt.
     *
     * @param beanName the bean's name
     * @param policy the policy it had, which it keeps for what describes it
     * @return a new retrier, named after the bean
     */
    public Retrier switchedOff(String beanName, Policy policy) {
        Retrier.Builder builder = Retrier.builder(policy).name(beanName).timer(this.timer);
        this.listeners.orderedStream().forEach((listener) -> builder.listener(forClient(listener, beanName)));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(beanName, builder));
        return builder.enabled(false).build();
    }

    private static RetryListener forClient(RetryListener listener, String beanName) {
        return (listener instanceof PerClientRetryListener perClient) ? perClient.forClient(beanName) : listener;
    }
}
