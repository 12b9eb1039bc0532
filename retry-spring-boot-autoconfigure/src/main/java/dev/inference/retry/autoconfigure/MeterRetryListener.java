package dev.inference.retry.autoconfigure;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.CooldownEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryBudgetExhaustedException;
import dev.inference.retry.RetryListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Counts the events of retrying clients as Micrometer meters:
 * <ul>
 * <li>{@value #ATTEMPTS}, a counter incremented once per attempt, tagged {@code client},
 * {@code operation} ({@code invoke}, {@code stream}), {@code outcome} ({@code success},
 * {@code retryable_failure}, {@code failure}) and {@code error} ({@link RetryTags#error(Throwable)});
 * a {@link io.micrometer.core.instrument.FunctionCounter}, read with {@code functionCounter()} or as
 * any {@code Meter}, except in a {@code CompositeMeterRegistry}, where it is a {@link Counter};</li>
 * <li>{@value #EXHAUSTED}, a counter incremented once per call that ended in an
 * {@link ExhaustedException}, tagged {@code client} and {@code operation};</li>
 * <li>{@value #BACKOFF}, a timer recording each scheduled backoff wait with its exact delay, tagged
 * {@code client} and {@code operation} (a wait for a cool-down beyond the backoff is not recorded
 * here);</li>
 * <li>{@value #BUDGET_REFUSED}, a counter incremented once per call that a retry budget ended,
 * tagged {@code client} and {@code operation} (such a call is counted as exhausted too);</li>
 * <li>{@value #COOLDOWN_WAITS}, a counter incremented once per attempt that a shared cool-down
 * delayed, tagged {@code client}.</li>
 * </ul>
 * The exhausted counters and backoff timers of the clients named at construction are registered at
 * once, at zero, for both operations; the meters of each client are built once and reused.
 *
 * <p>Added to a client as it is, this listener looks the event's client up in a map at every event,
 * so that one instance serves any number of clients. {@link #forClient(String)} gives the listener
 * of one client, which resolves that client's meters once, so that a successful attempt costs only the
 * increment of its counter: the auto-configuration attaches one to every wrapped client when a
 * {@link MeterRegistry} bean exists, and a hand-built client is best given one too
 * ({@code builder.name("chat").listener(meters.forClient("chat"))}). It depends on Micrometer only.
 * Thread-safe.
 *
 * <p>An attempt is counted without a locked instruction, except in a {@code CompositeMeterRegistry}: in
 * a cell that the calling platform thread owns, found by its thread id (a virtual thread counts in a
 * shared adder), the cells summed when the meter is read. The counts of every listener whose counters a
 * {@link io.micrometer.core.instrument.config.MeterFilter} merges into one meter add up in that meter,
 * and a meter keeps its counts after the listeners that counted into it are gone.
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

    /** The name of the counter of failed exchanges with the Redis cool-down store. */
    public static final String COOLDOWN_ERRORS = "inference.retry.cooldown.errors";

    private final MeterRegistry registry;

    private final ConcurrentMap<String, ClientMeters> clients = new ConcurrentHashMap<>();

    /**
     * Creates the listener and registers, at zero, the exhausted counters and backoff timers of the
     * named clients; meters of clients first seen in an event are registered then.
     *
     * @param registry where the meters are registered
     * @param clientNames the names of the clients known up front, as given to
     *     {@code Retrier.Builder#name}
     */
    public MeterRetryListener(MeterRegistry registry, Iterable<String> clientNames) {
        this.registry = registry;
        for (String client : clientNames) {
            meters(client);
        }
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
        return new ClientListener(client, meters(Objects.requireNonNull(client, "client must not be null")), this);
    }

    @Override
    public void attemptFinished(AttemptEvent event) {
        meters(event.client()).of(event.operation()).attemptFinished(event);
    }

    @Override
    public void retryScheduled(AttemptEvent failed, Duration delay) {
        meters(failed.client()).of(failed.operation()).backoff.record(delay);
    }

    @Override
    public void exhausted(AttemptEvent last, ExhaustedException exception) {
        meters(last.client()).of(last.operation()).exhausted.increment();
        countRefusal(last, exception);
    }

    @Override
    public void attemptDelayed(CooldownEvent event) {
        cooldownWaits(this.registry, event.client()).increment();
    }

    private void countRefusal(AttemptEvent last, ExhaustedException exception) {
        if (exception instanceof RetryBudgetExhaustedException) {
            budgetRefused(this.registry, last.client(), last.operation()).increment();
        }
    }

    private ClientMeters meters(String client) {
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
     * Registers at zero the meter of the attempts that a shared cool-down delayed for a client,
     * {@value #COOLDOWN_WAITS}. Idempotent.
     *
     * @param registry where the meter is registered
     * @param client the client's name
     */
    public static void registerCooldownMeters(MeterRegistry registry, String client) {
        cooldownWaits(registry, client);
    }

    private static Counter budgetRefused(MeterRegistry registry, String client, Operation operation) {
        return Counter.builder(BUDGET_REFUSED)
            .description("Calls of a retrying inference client that its retry budget ended by refusing a retry")
            .tag("client", client)
            .tag("operation", RetryTags.operation(operation))
            .register(registry);
    }

    private static Counter cooldownWaits(MeterRegistry registry, String client) {
        return Counter.builder(COOLDOWN_WAITS)
            .description("Attempts of a retrying inference client that a provider's shared cool-down delayed")
            .tag("client", client)
            .register(registry);
    }

    @Override
    public String toString() {
        return "MeterRetryListener[" + this.registry.getClass().getSimpleName() + "]";
    }

    /** The listener of one client, holding that client's meters. */
    private static final class ClientListener implements RetryListener {

        private final ClientMeters meters;

        private final MeterRetryListener all;

        /**
         * The name this listener was asked for, the very instance that its client reports, so that
         * {@code equals} ends at {@code ==}; and the client's counts of successful attempts, held here
         * to be a load nearer.
         */
        private final String client;

        private final Tally invokeSuccesses;

        private final Tally streamSuccesses;

        /**
         * The last successful event of this client's invokes, and of its streams, seen here. A retrier
         * reports every first success of an operation with one event made once, so the next is known by
         * identity alone; an event is immutable, so one that is the same object is the same success.
         * Written without synchronization: any thread may store any such event, all of them correct.
         */
        private @Nullable AttemptEvent knownInvokeSuccess;

        private @Nullable AttemptEvent knownStreamSuccess;

        ClientListener(String client, ClientMeters meters, MeterRetryListener all) {
            this.meters = meters;
            this.all = all;
            this.client = client;
            this.invokeSuccesses = meters.of(Operation.INVOKE).successes;
            this.streamSuccesses = meters.of(Operation.STREAM).successes;
        }

        @Override
        public void attemptFinished(AttemptEvent event) {
            if (event == this.knownInvokeSuccess) {
                this.invokeSuccesses.increment();
            }
            else if (event == this.knownStreamSuccess) {
                this.streamSuccesses.increment();
            }
            else if (event.failure() == null && this.client.equals(event.client())) {
                succeeded(event);
            }
            else {
                metersOf(event).of(event.operation()).attemptFinished(event);
            }
        }

        private void succeeded(AttemptEvent event) {
            if (event.operation() == Operation.INVOKE) {
                this.knownInvokeSuccess = event;
                this.invokeSuccesses.increment();
            }
            else {
                this.knownStreamSuccess = event;
                this.streamSuccesses.increment();
            }
        }

        @Override
        public void retryScheduled(AttemptEvent failed, Duration delay) {
            metersOf(failed).of(failed.operation()).backoff.record(delay);
        }

        @Override
        public void exhausted(AttemptEvent last, ExhaustedException exception) {
            metersOf(last).of(last.operation()).exhausted.increment();
            this.all.countRefusal(last, exception);
        }

        @Override
        public void attemptDelayed(CooldownEvent event) {
            this.all.attemptDelayed(event);
        }

        private ClientMeters metersOf(AttemptEvent event) {
            return this.client.equals(event.client()) ? this.meters : this.all.meters(event.client());
        }

        @Override
        public String toString() {
            return "MeterRetryListener[" + this.all.registry.getClass().getSimpleName() + ", client="
                    + this.meters.client + "]";
        }
    }

    /** The {@code outcome} and {@code error} tags of a failed attempt. */
    private record FailureTags(String outcome, String error) {
    }

    /** The meters of one client, one set per operation. */
    private static final class ClientMeters {

        final String client;

        private final OperationMeters invoke;

        private final OperationMeters stream;

        ClientMeters(MeterRegistry registry, String client) {
            this.client = client;
            this.invoke = new OperationMeters(registry, client, Operation.INVOKE);
            this.stream = new OperationMeters(registry, client, Operation.STREAM);
        }

        OperationMeters of(Operation operation) {
            return (operation == Operation.INVOKE) ? this.invoke : this.stream;
        }
    }

    /** The meters of one client's operation; failed-attempt counters are added per tag pair. */
    private static final class OperationMeters {

        private final MeterRegistry registry;

        private final String client;

        private final String operation;

        final Tally successes;

        final Counter exhausted;

        final Timer backoff;

        private final ConcurrentMap<FailureTags, Tally> failures = new ConcurrentHashMap<>();

        OperationMeters(MeterRegistry registry, String client, Operation operation) {
            this.registry = registry;
            this.client = client;
            this.operation = RetryTags.operation(operation);
            this.successes = attemptCounter("success", "none");
            this.exhausted = Counter.builder(EXHAUSTED)
                .description("Calls of a retrying inference client that failed on every attempt allowed")
                .tag("client", client)
                .tag("operation", this.operation)
                .register(registry);
            this.backoff = Timer.builder(BACKOFF)
                .description("Waits scheduled by a retrying inference client before its next attempt")
                .tag("client", client)
                .tag("operation", this.operation)
                .register(registry);
        }

        void attemptFinished(AttemptEvent event) {
            Throwable failure = event.failure();
            if (failure == null) {
                this.successes.increment();
                return;
            }
            FailureTags tags = new FailureTags(RetryTags.outcome(event), RetryTags.error(failure));
            this.failures.computeIfAbsent(tags, (key) -> attemptCounter(key.outcome, key.error)).increment();
        }

        private Tally attemptCounter(String outcome, String error) {
            return PerThreadCounters.register(this.registry, ATTEMPTS, "Attempts made by a retrying inference client",
                    Tags.of("client", this.client, "operation", this.operation, "outcome", outcome, "error", error));
        }
    }
}
