package dev.inference.retry.autoconfigure;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.CooldownEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryBudgetExhaustedException;
import dev.inference.retry.RetryListener;
import dev.inference.retry.StreamStalledEvent;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownSetEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Counts the events of retrying clients in Micrometer meters, every counter the registry's own
 * {@link Counter}, in a {@code CompositeMeterRegistry} as in any other: {@value #ATTEMPTS} per attempt,
 * tagged {@code client}, {@code operation}, {@code outcome} and {@code error} (see {@link RetryTags});
 * {@value #EXHAUSTED} per call that ended in an {@link ExhaustedException}, {@value #BUDGET_REFUSED} per
 * call that a retry budget ended (counted as exhausted too) and the timer {@value #BACKOFF} per scheduled
 * backoff wait, each tagged {@code client} and {@code operation}; {@value #COOLDOWN_WAITS} per attempt
 * that a shared cool-down delayed, tagged {@code client}; {@value #COOLDOWN_SET} per cool-down a client
 * set, tagged {@code client} and {@code reason} ({@code retry_after} or {@code rate_limit}).
 *
 * <p>One instance serves any number of clients, looking the event's client up at every event.
 * {@link #forClient(String)} gives one client's listener, its meters resolved once, so that a successful
 * attempt costs one {@code Counter.increment()}: the auto-configuration attaches one to every wrapped
 * client; give a hand-built client one too, under its own name
 * ({@code builder.name("chat").listener(meters.forClient("chat"))}). Meters are resolved once and kept:
 * one removed from the registry afterwards is not registered again by this listener, only by a new one.
 * Thread-safe; depends on Micrometer only.
 */
public final class MeterRetryListener implements PerClientRetryListener {

    /** The name of the counter of attempts. */
    public static final String ATTEMPTS = "inference.retry.attempts";

    /** The name of the counter of calls that ended in an {@link ExhaustedException}. */
    public static final String EXHAUSTED = "inference.retry.exhausted";

    /** The name of the timer of scheduled waits. */
    public static final String BACKOFF = "inference.retry.backoff";

    /** The name of the counter of calls that a retry budget ended by refusing a retry. */
    public static final String BUDGET_REFUSED = "inference.retry.budget.refused";

    /** The name of the counter of attempts that a shared cool-down delayed. */
    public static final String COOLDOWN_WAITS = "inference.retry.cooldown.waits";

    /** The name of the counter of the cool-downs that this instance's clients set. */
    public static final String COOLDOWN_SET = "inference.retry.cooldown.set";

    /** The name of the counter of the established streams that stalled past their idle timeout. */
    public static final String STREAMS_STALLED = "inference.retry.streams.stalled";

    /** The name of the counter of failed exchanges with the Redis cool-down store. */
    public static final String COOLDOWN_ERRORS = "inference.retry.cooldown.errors";

    /**
     * The name of the counter of the runtime refreshes of the configuration, tagged {@code result} ({@code applied},
     * {@code rejected}); registered with Spring Cloud Context only (SPEC §13).
     */
    public static final String REFRESHES = "inference.retry.refresh";

    private final MeterRegistry registry;

    /** Every client's meters, shared with the listeners {@link #forClient} gives. */
    private final ConcurrentMap<String, ClientMeters> clients;

    /** The client whose meters this listener holds, or {@code null} for the shared listener. */
    private final @Nullable String client;

    /** That client's meters, resolved once; {@code null} with {@link #client}. */
    private final @Nullable ClientMeters clientMeters;

    /**
     * Creates the listener and registers at zero, for both operations of each named client, its
     * successful attempts in {@value #ATTEMPTS}, its {@value #EXHAUSTED} counter and its {@value #BACKOFF}
     * timer; the meters of a client first seen in an event are registered then.
     *
     * @param registry where the meters are registered
     * @param clientNames the names of the clients known up front, as given to
     *     {@code Retrier.Builder#name}
     */
    public MeterRetryListener(MeterRegistry registry, Iterable<String> clientNames) {
        this.registry = registry;
        this.clients = new ConcurrentHashMap<>();
        this.client = null;
        this.clientMeters = null;
        for (String client : clientNames) {
            meters(client);
        }
    }

    private MeterRetryListener(MeterRetryListener all, String client) {
        this.registry = all.registry;
        this.clients = all.clients;
        this.client = client;
        this.clientMeters = meters(client);
    }

    /**
     * Returns the listener for the client named {@code client}: it counts into the same meters as
     * this listener, with that client's meters registered (at zero, if they were not yet) and resolved
     * now, once, rather than looked up at every event. Attach it to the client of that name only; an
     * event of another client is still counted under its own name, at the cost of the lookup.
     *
     * @param client the name of the client, as given to {@code Retrier.Builder#name}
     * @return a listener for that client, thread-safe
     * @throws NullPointerException if {@code client} is {@code null}
     */
    @Override
    public RetryListener forClient(String client) {
        return new MeterRetryListener(this, Objects.requireNonNull(client, "client must not be null"));
    }

    /**
     * Counts the attempt in {@value #ATTEMPTS}, under its client, operation, outcome and error.
     *
     * @param event the attempt
     */
    @Override
    public void attemptFinished(AttemptEvent event) {
        meters(event.client()).attemptFinished(event);
    }

    /**
     * Records the wait in {@value #BACKOFF}, under the failed attempt's client and operation.
     *
     * @param failed the attempt that failed
     * @param delay the wait before the next attempt
     */
    @Override
    public void retryScheduled(AttemptEvent failed, Duration delay) {
        meters(failed.client()).retryScheduled(failed, delay);
    }

    /**
     * Counts the call in {@value #EXHAUSTED}, and also in {@value #BUDGET_REFUSED} when a retry budget
     * ended it, under the last attempt's client and operation.
     *
     * @param last the last attempt
     * @param exception the exception the call ends with
     */
    @Override
    public void exhausted(AttemptEvent last, ExhaustedException exception) {
        meters(last.client()).exhausted(last, exception);
    }

    /**
     * Counts the delayed attempt in {@value #COOLDOWN_WAITS}, under its client.
     *
     * @param event the attempt that waits
     */
    @Override
    public void attemptDelayed(CooldownEvent event) {
        cooldownWaits(this.registry, event.client()).increment();
    }

    /**
     * Counts the cool-down in {@value #COOLDOWN_SET}, under its client and reason.
     *
     * @param event the cool-down set
     */
    @Override
    public void cooldownSet(CooldownSetEvent event) {
        cooldownSet(this.registry, event.client(), event.reason()).increment();
    }

    @Override
    public void streamStalled(StreamStalledEvent event) {
        streamsStalled(this.registry, event.client()).increment();
    }

    /**
     * The meters of an event's client: this listener's own when it is that client's (the very name its
     * client reports, so that {@code equals} ends at {@code ==}), else looked up, for the shared listener
     * or a client renamed by a customizer.
     */
    private ClientMeters meters(String client) {
        if (this.clientMeters != null && client.equals(this.client)) {
            return this.clientMeters;
        }
        // get() first: computeIfAbsent would allocate its capturing lambda on every event.
        ClientMeters meters = this.clients.get(client);
        return (meters != null) ? meters
                : this.clients.computeIfAbsent(client, (name) -> new ClientMeters(this.registry, name));
    }

    /**
     * Registers at zero the meters of a client's retry budget: {@value #BUDGET_REFUSED}, per
     * operation. Idempotent.
     *
     * @param registry where the meters are registered
     * @param client the client's name
     */
    public static void registerBudgetMeters(MeterRegistry registry, String client) {
        for (Operation operation : Operation.values()) {
            budgetRefused(registry, client, operation);
        }
    }

    /**
     * Registers at zero the meters of a client's shared cool-down: {@value #COOLDOWN_WAITS}, the
     * attempts a cool-down delayed, and {@value #COOLDOWN_SET}, the cool-downs it set, per reason.
     * Idempotent.
     *
     * @param registry where the meters are registered
     * @param client the client's name
     */
    public static void registerCooldownMeters(MeterRegistry registry, String client) {
        cooldownWaits(registry, client);
        for (CooldownReason reason : CooldownReason.values()) {
            cooldownSet(registry, client, reason);
        }
    }

    /**
     * Registers at zero the counter {@value #STREAMS_STALLED} of a client whose
     * {@code stream-idle-timeout} is set: the established streams it ended for their silence.
     * Idempotent.
     *
     * @param registry where the meter is registered
     * @param client the client's name
     */
    public static void registerStallMeters(MeterRegistry registry, String client) {
        streamsStalled(registry, client);
    }

    private static Counter streamsStalled(MeterRegistry registry, String client) {
        return Counter.builder(STREAMS_STALLED)
            .description("Established streams of a retrying inference client that stayed silent past its "
                    + "stream-idle-timeout and were ended with StreamStalledException")
            .tag("client", client)
            .register(registry);
    }

    private static Counter budgetRefused(MeterRegistry registry, String client, Operation operation) {
        return Counter.builder(BUDGET_REFUSED)
            .description("Calls of a retrying inference client that its retry budget ended by refusing a retry")
            .tag("client", client)
            .tag("operation", RetryTags.operation(operation))
            .register(registry);
    }

    private static Counter cooldownSet(MeterRegistry registry, String client, CooldownReason reason) {
        return Counter.builder(COOLDOWN_SET)
            .description("Cool-downs that a retrying inference client set for its provider account: for a "
                    + "Retry-After, or for rate-limit headers that said no requests or tokens remain")
            .tag("client", client)
            .tag("reason", RetryTags.reason(reason))
            .register(registry);
    }

    private static Counter cooldownWaits(MeterRegistry registry, String client) {
        return Counter.builder(COOLDOWN_WAITS)
            .description("Attempts of a retrying inference client that a provider's shared cool-down delayed")
            .tag("client", client)
            .register(registry);
    }

    /**
     * Describes the listener by the class of its registry, and the client it was given for, if any.
     *
     * @return {@code MeterRetryListener[<registry class>]}, or
     *     {@code MeterRetryListener[<registry class>, client=<name>]} for a {@link #forClient} listener
     */
    @Override
    public String toString() {
        return "MeterRetryListener[" + this.registry.getClass().getSimpleName()
                + ((this.client != null) ? ", client=" + this.client : "") + "]";
    }

    /** The {@code outcome} and {@code error} tags of an attempt. */
    private record AttemptTags(String outcome, String error) {
    }

    /** The meters of one client, one set per operation. */
    private static final class ClientMeters {

        private final OperationMeters invoke;

        private final OperationMeters stream;

        ClientMeters(MeterRegistry registry, String client) {
            this.invoke = new OperationMeters(registry, client, Operation.INVOKE);
            this.stream = new OperationMeters(registry, client, Operation.STREAM);
        }

        void attemptFinished(AttemptEvent event) {
            of(event.operation()).attemptFinished(event);
        }

        void retryScheduled(AttemptEvent failed, Duration delay) {
            of(failed.operation()).retryScheduled(delay);
        }

        void exhausted(AttemptEvent last, ExhaustedException exception) {
            of(last.operation()).exhausted(exception);
        }

        private OperationMeters of(Operation operation) {
            return (operation == Operation.INVOKE) ? this.invoke : this.stream;
        }
    }

    /**
     * The meters of one client's operation. The success counter is resolved up front; a failure's
     * counter once per pair of {@code outcome} and {@code error} tags, then kept.
     */
    private static final class OperationMeters {

        private final MeterRegistry registry;

        private final String client;

        private final Operation operation;

        private final Counter successes;

        private final Counter exhausted;

        private final Timer backoff;

        private final ConcurrentMap<AttemptTags, Counter> failures = new ConcurrentHashMap<>();

        OperationMeters(MeterRegistry registry, String client, Operation operation) {
            this.registry = registry;
            this.client = client;
            this.operation = operation;
            this.successes = attemptCounter(new AttemptTags("success", RetryTags.NO_ERROR));
            this.exhausted = Counter.builder(EXHAUSTED)
                .description("Calls of a retrying inference client that failed on every attempt allowed")
                .tag("client", client)
                .tag("operation", RetryTags.operation(operation))
                .register(registry);
            this.backoff = Timer.builder(BACKOFF)
                .description("Waits scheduled by a retrying inference client before its next attempt")
                .tag("client", client)
                .tag("operation", RetryTags.operation(operation))
                .register(registry);
        }

        void attemptFinished(AttemptEvent event) {
            Throwable failure = event.failure();
            if (failure == null) {
                this.successes.increment();
                return;
            }
            AttemptTags tags = new AttemptTags(RetryTags.outcome(event), RetryTags.error(failure));
            this.failures.computeIfAbsent(tags, this::attemptCounter).increment();
        }

        void retryScheduled(Duration delay) {
            this.backoff.record(delay);
        }

        void exhausted(ExhaustedException exception) {
            this.exhausted.increment();
            if (exception instanceof RetryBudgetExhaustedException) {
                budgetRefused(this.registry, this.client, this.operation).increment();
            }
        }

        private Counter attemptCounter(AttemptTags tags) {
            return Counter.builder(ATTEMPTS)
                .description("Attempts made by a retrying inference client")
                .tag("client", this.client)
                .tag("operation", RetryTags.operation(this.operation))
                .tag("outcome", tags.outcome())
                .tag("error", tags.error())
                .register(this.registry);
        }
    }
}
