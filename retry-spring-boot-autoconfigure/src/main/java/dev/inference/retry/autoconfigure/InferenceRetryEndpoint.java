package dev.inference.retry.autoconfigure;

import dev.inference.retry.Backoff;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code inferenceretry} actuator endpoint: every retried {@code InferenceClient} bean, lazy ones
 * included, with its name, its effective policy and its delay schedule. A bean that is a
 * {@code RetryClient} of the application's own is described by its own name and policy, once it is
 * made.
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

    InferenceRetryEndpoint(RetriedClients clients) {
        this.clients = clients;
    }

    /**
     * Lists every retried client.
     *
     * @return the clients, keyed by bean name, in bean registration order
     */
    @ReadOperation
    public RetriedClientsDescriptor clients() {
        Map<String, ClientDescriptor> descriptors = new LinkedHashMap<>();
        this.clients.clients().forEach((name, client) -> descriptors.put(name, describe(client)));
        return new RetriedClientsDescriptor(descriptors);
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
        return (client != null) ? describe(client) : null;
    }

    private static ClientDescriptor describe(RetriedClients.Retrying client) {
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
                        budget.tokens().toPlainString(), budget.allowsRetries()) : null);
    }

    /**
     * The retried clients of the application.
     *
     * @param clients each client's description, keyed by bean name
     */
    public record RetriedClientsDescriptor(Map<String, ClientDescriptor> clients) implements OperationResponseBody {
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
     */
    public record ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule,
            @Nullable BudgetDescriptor budget) implements OperationResponseBody {

        /**
         * Describes a client without a retry budget.
         *
         * @param name the client's name
         * @param policy its effective policy
         * @param schedule its delays
         */
        public ClientDescriptor(String name, PolicyDescriptor policy, List<RetryDescriptor> schedule) {
            this(name, policy, schedule, null);
        }
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
