package dev.inference.retry.autoconfigure;

import dev.inference.retry.Backoff;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.Timeouts;
import dev.inference.retry.autoconfigure.fallback.FallbackChains;
import dev.inference.retry.cooldown.CooldownStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code inferenceretry} actuator endpoint: every retried {@code InferenceClient} bean, lazy ones
 * included, with its name, its effective policy and its delay schedule, as in force now: after a
 * refresh (SPEC §13), the refreshed configuration, and in {@code refresh} when and how the last one
 * ended (absent, {@code null}, until the first). A bean that is a
 * {@code RetryClient} of the application's own is described by its own name and policy, once it is
 * made. With a cool-down store, each client's provider account is shown with the cool-down in force,
 * if any, and why it was set.
 *
 * <p>Durations are ISO-8601 strings ({@code "PT0.2S"}), the form {@link Duration#toString()} prints
 * and {@code inference.retry.*} accepts. The schedule has one row per retry, for the first
 * {@value #MAX_SCHEDULE_ROWS} at most: the slot after the failed attempt, and the range that jitter
 * spreads it over, from {@code slot × 0.9} inclusive to {@code slot × 1.1} exclusive, as
 * {@link Backoff#shortestDelay} and {@link Backoff#delayBound} compute them. A provider's
 * {@code Retry-After} can make an actual wait longer.
 */
@Endpoint(id = "inferenceretry")
public class InferenceRetryEndpoint {

    /** The most schedule rows listed per client. */
    public static final int MAX_SCHEDULE_ROWS = 20;

    private final RetriedClients clients;

    private final ObjectProvider<CooldownStore> cooldownStore;

    private final ObjectProvider<FallbackChains> fallbacks;

    InferenceRetryEndpoint(RetriedClients clients, ObjectProvider<CooldownStore> cooldownStore,
            ObjectProvider<FallbackChains> fallbacks) {
        this.clients = clients;
        this.cooldownStore = cooldownStore;
        this.fallbacks = fallbacks;
    }

    /**
     * Lists every retried client.
     *
     * @return the clients, keyed by bean name, in bean registration order
     */
    @ReadOperation
    public RetriedClientsDescriptor clients() {
        Map<String, ClientDescriptor> descriptors = new LinkedHashMap<>();
        CooldownStore store = this.cooldownStore.getIfAvailable();
        this.clients.clients().forEach((name, client) -> descriptors.put(name, describe(client, store)));
        FallbackChains chains = this.fallbacks.getIfAvailable();
        RefreshDescriptor refresh = this.clients.lastRefresh()
            .map((outcome) -> new RefreshDescriptor(outcome.at().toString(), outcome.result(), outcome.reason(),
                    List.copyOf(this.clients.switchedOff())))
            .orElse(null);
        return new RetriedClientsDescriptor(descriptors, (chains != null) ? chains.describe() : Map.of(), refresh);
    }

    /**
     * Describes one retried client.
     *
     * @param name the bean name
     * @return the client, or {@code null} (a 404 over HTTP) when no retried bean has that name
     */
    @ReadOperation
    public @Nullable ClientDescriptor client(@Selector String name) {
        RetriedClients.Retrying client = this.clients.clients().get(name);
        return (client != null) ? describe(client, this.cooldownStore.getIfAvailable()) : null;
    }

    private static ClientDescriptor describe(RetriedClients.Retrying client, @Nullable CooldownStore store) {
        Policy policy = client.policy();
        int rows = Math.min(policy.maxAttempts() - 1, MAX_SCHEDULE_ROWS);
        List<RetryDescriptor> schedule = new ArrayList<>(rows);
        for (int failedAttempt = 1; failedAttempt <= rows; failedAttempt++) {
            Duration slot = Backoff.slot(policy, failedAttempt);
            schedule.add(new RetryDescriptor(failedAttempt, slot.toString(),
                    Backoff.shortestDelay(policy, failedAttempt).toString(),
                    Backoff.delayBound(policy, failedAttempt).toString()));
        }
        RetryBudget budget = client.budget();
        return new ClientDescriptor(client.name(), new PolicyDescriptor(policy.stableRetries(),
                policy.stableDelay().toString(), policy.maxAttempts(), policy.maxDelay().toString()), schedule,
                (budget != null) ? new BudgetDescriptor(budget.maxTokens(), budget.tokenRatio().toPlainString(),
                        budget.tokens().toPlainString(), budget.allowsRetries()) : null,
                (store != null) ? cooldown(store, client.cooldownKey()) : null, timeouts(client.timeouts()));
    }

    private static @Nullable TimeoutsDescriptor timeouts(Timeouts timeouts) {
        if (timeouts.isNone()) {
            return null;
        }
        return new TimeoutsDescriptor(timeouts.attempt().map(Duration::toString).orElse(null),
                timeouts.firstToken().map(Duration::toString).orElse(null),
                timeouts.streamIdle().map(Duration::toString).orElse(null));
    }

    private static CooldownDescriptor cooldown(CooldownStore store, String key) {
        Duration remaining = store.remaining(key);
        String reason = remaining.isZero() ? null : store.reason(key).map(RetryTags::reason).orElse(null);
        return new CooldownDescriptor(key, remaining.toString(), reason);
    }

    /**
     * The retried clients of the application, and its fallback chains.
     *
     * @param clients each client's description, keyed by bean name
     * @param fallbacks each fallback chain, with which members are skipped now and until when, keyed
     *     by the chain's bean name
     * @param refresh the last refresh of the configuration, or {@code null} when it was never refreshed
     */
    public record RetriedClientsDescriptor(Map<String, ClientDescriptor> clients,
            Map<String, FallbackChains.ChainDescriptor> fallbacks, @Nullable RefreshDescriptor refresh)
            implements OperationResponseBody {

        /**
         * Describes the clients of an application without fallback chains, never refreshed.
         *
         * @param clients each client's description, keyed by bean name
         */
        public RetriedClientsDescriptor(Map<String, ClientDescriptor> clients) {
            this(clients, Map.of());
        }

        /**
         * Describes the clients and chains of an application never refreshed.
         *
         * @param clients each client's description, keyed by bean name
         * @param fallbacks each fallback chain, keyed by the chain's bean name
         */
        public RetriedClientsDescriptor(Map<String, ClientDescriptor> clients,
                Map<String, FallbackChains.ChainDescriptor> fallbacks) {
            this(clients, fallbacks, null);
        }
    }

    /**
     * The last refresh of the configuration (SPEC §13).
     *
     * @param at when it ended, ISO-8601
     * @param result {@code applied} or {@code rejected}
     * @param reason why it was refused, or {@code null} when it was applied
     * @param switchedOff the beans whose retries are switched off now, left out of {@code clients}
     */
    public record RefreshDescriptor(String at, String result, @Nullable String reason, List<String> switchedOff) {
    }

    /**
     * One retried client.
     *
     * @param name the name the client reports to its listeners, and so the {@code client} tag of
     *     its meters: the bean name, unless the bean was a retrying client of the application's own
     *     (or a customizer renamed it)
     * @param policy its effective policy
     * @param schedule its delays, one row per retry, at most {@value InferenceRetryEndpoint#MAX_SCHEDULE_ROWS}
     * @param budget its retry budget now, or {@code null} when it has none
     * @param cooldown the cool-down of its provider account now, or {@code null} when no cool-down store
     *     is configured
     * @param timeouts its timeouts, or {@code null} when none is set
     */
    public record ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule,
            @Nullable BudgetDescriptor budget, @Nullable CooldownDescriptor cooldown,
            @Nullable TimeoutsDescriptor timeouts) implements OperationResponseBody {

        /**
         * Describes a client without timeouts.
         *
         * @param name the client's name
         * @param policy its effective policy
         * @param schedule its delays
         * @param budget its retry budget now, or {@code null} when it has none
         * @param cooldown the cool-down of its provider account now, or {@code null} when no
         *     cool-down store is configured
         */
        public ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule,
                @Nullable BudgetDescriptor budget, @Nullable CooldownDescriptor cooldown) {
            this(name, policy, schedule, budget, cooldown, null);
        }

        /**
         * Describes a client without a retry budget or a cool-down store.
         *
         * @param name the client's name
         * @param policy its effective policy
         * @param schedule its delays
         */
        public ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule) {
            this(name, policy, schedule, null, null);
        }

        /**
         * Describes a client without a cool-down store.
         *
         * @param name the client's name
         * @param policy its effective policy
         * @param schedule its delays
         * @param budget its retry budget now, or {@code null} when it has none
         */
        public ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule,
                @Nullable BudgetDescriptor budget) {
            this(name, policy, schedule, budget, null);
        }
    }

    /**
     * The timeouts of a client (SPEC §11), each ISO-8601, or {@code null} when it is off.
     *
     * @param attemptTimeout the longest one attempt of an invoke may take
     * @param firstTokenTimeout the longest one attempt of a stream may take to be established
     * @param streamIdleTimeout the longest gap between two events of an established stream
     */
    public record TimeoutsDescriptor(@Nullable String attemptTimeout, @Nullable String firstTokenTimeout,
            @Nullable String streamIdleTimeout) {
    }

    /**
     * The cool-down of a client's provider account as it stands.
     *
     * @param key the provider account, shared by every client with the same key
     * @param remaining how long the cool-down in force still lasts, ISO-8601; {@code PT0S} when none is
     * @param reason why it was set, {@code retry_after} or {@code rate_limit}; {@code null} when none is
     *     in force, or the store keeps no reasons
     */
    public record CooldownDescriptor(String key, String remaining, @Nullable String reason) {
    }

    /**
     * A retry budget as it stands.
     *
     * @param maxTokens the bucket's size
     * @param tokenRatio the tokens a success returns
     * @param tokens the tokens in the bucket now
     * @param allowsRetries whether a retry would be allowed now: more than half the bucket is left
     */
    public record BudgetDescriptor(int maxTokens, String tokenRatio, String tokens, boolean allowsRetries) {
    }

    /**
     * An effective policy, after per-client overrides.
     *
     * @param stableRetries how many retries wait {@code stableDelay}
     * @param stableDelay the stable wait, ISO-8601
     * @param maxAttempts the most attempts per call, the first included
     * @param maxDelay the cap on a wait before jitter, ISO-8601
     */
    public record PolicyDescriptor(int stableRetries, String stableDelay, int maxAttempts, String maxDelay) {
    }

    /**
     * The wait before one retry.
     *
     * @param failedAttempt the 1-based number of the attempt that failed, so this is retry number
     *     {@code failedAttempt}
     * @param slot the wait before jitter, ISO-8601
     * @param min the shortest wait after jitter ({@code slot × 0.9}), ISO-8601
     * @param max the bound, never reached, of the longest wait after jitter ({@code slot × 1.1}),
     *     ISO-8601
     */
    public record RetryDescriptor(int failedAttempt, String slot, String min, String max) {
    }
}
