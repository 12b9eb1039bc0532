package dev.inference.retry.autoconfigure;

import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Counts the events of retrying clients as Micrometer meters:
 * <ul>
 * <li>{@value #ATTEMPTS}, a counter incremented once per attempt, tagged {@code client},
 * {@code operation} ({@code invoke}, {@code stream}), {@code outcome} ({@code success},
 * {@code retryable_failure}, {@code failure}) and {@code error} ({@link #errorTag(Throwable)});</li>
 * <li>{@value #EXHAUSTED}, a counter incremented once per call that ended in an
 * {@link ExhaustedException}, tagged {@code client} and {@code operation};</li>
 * <li>{@value #BACKOFF}, a timer recording each scheduled wait with its exact delay, tagged
 * {@code client} and {@code operation}.</li>
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
 */
public final class MeterRetryListener implements PerClientRetryListener {

    /** The name of the counter of attempts. */
    public static final String ATTEMPTS = "inference.retry.attempts";

    /** The name of the counter of calls that ended in an {@link ExhaustedException}. */
    public static final String EXHAUSTED = "inference.retry.exhausted";

    /** The name of the timer of scheduled waits. */
    public static final String BACKOFF = "inference.retry.backoff";

    private final MeterRegistry registry;

    private final ConcurrentMap<String, ClientMeters> clients = new ConcurrentHashMap<>();

    /**
     * Creates the listener and registers, at zero, the exhausted counters and backoff timers of the
     * named clients; meters of clients first seen in an event are registered then.
     *
     * @param registry where the meters are registered
     * @param clientNames the names of the clients known up front, as given to
     *     {@code RetryClient.Builder#name}
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
     * @param client the name of the client, as given to {@code RetryClient.Builder#name}
     * @return a listener for that client, thread-safe
     * @throws NullPointerException if {@code client} is {@code null}
     */
    @Override
    public RetryListener forClient(String client) {
        return new ClientListener(meters(Objects.requireNonNull(client, "client must not be null")), this);
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
    }

    private ClientMeters meters(String client) {
        // get() first: computeIfAbsent would allocate its capturing lambda on every event.
        ClientMeters meters = this.clients.get(client);
        return (meters != null) ? meters
                : this.clients.computeIfAbsent(client, (name) -> new ClientMeters(this.registry, name));
    }

    /**
     * Returns the {@code error} tag of a failure, read from its cause chain as
     * {@link dev.inference.retry.Classification} reads it: the first cancellation
     * ({@code cancelled}), passed deadline ({@code deadline}) or {@link ExhaustedException} in the
     * chain names it; failing those, the first typed failure ({@code network} or
     * {@code http_<status>}); failing that, the simple class name of the failure itself.
     */
    static String errorTag(Throwable failure) {
        @Nullable String typed = null;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable current = failure; current != null && seen.add(current); current = current.getCause()) {
            if (current instanceof CancellationException || current instanceof InterruptedException) {
                return "cancelled";
            }
            if (current instanceof DeadlineExceededException) {
                return "deadline";
            }
            if (current instanceof ExhaustedException) {
                return className(current);
            }
            if (typed == null && current instanceof NetworkException) {
                typed = "network";
            }
            else if (typed == null && current instanceof HttpStatusException status) {
                typed = "http_" + status.status();
            }
        }
        return (typed != null) ? typed : className(failure);
    }

    private static String className(Throwable failure) {
        String simple = failure.getClass().getSimpleName();
        return simple.isEmpty() ? failure.getClass().getName() : simple;
    }

    @Override
    public String toString() {
        return "MeterRetryListener[" + this.registry.getClass().getSimpleName() + "]";
    }

    /** The listener of one client, holding that client's meters. */
    private static final class ClientListener implements RetryListener {

        private final ClientMeters meters;

        private final MeterRetryListener all;

        ClientListener(ClientMeters meters, MeterRetryListener all) {
            this.meters = meters;
            this.all = all;
        }

        @Override
        public void attemptFinished(AttemptEvent event) {
            metersOf(event).of(event.operation()).attemptFinished(event);
        }

        @Override
        public void retryScheduled(AttemptEvent failed, Duration delay) {
            metersOf(failed).of(failed.operation()).backoff.record(delay);
        }

        @Override
        public void exhausted(AttemptEvent last, ExhaustedException exception) {
            metersOf(last).of(last.operation()).exhausted.increment();
        }

        private ClientMeters metersOf(AttemptEvent event) {
            // The client it was made for reports the very name it was made with: equals() ends at ==.
            return this.meters.client.equals(event.client()) ? this.meters : this.all.meters(event.client());
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

        private final Counter successes;

        final Counter exhausted;

        final Timer backoff;

        private final ConcurrentMap<FailureTags, Counter> failures = new ConcurrentHashMap<>();

        OperationMeters(MeterRegistry registry, String client, Operation operation) {
            this.registry = registry;
            this.client = client;
            this.operation = operation.name().toLowerCase(Locale.ROOT);
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
            FailureTags tags = new FailureTags(event.retryable() ? "retryable_failure" : "failure", errorTag(failure));
            this.failures.computeIfAbsent(tags, (key) -> attemptCounter(key.outcome, key.error)).increment();
        }

        private Counter attemptCounter(String outcome, String error) {
            return Counter.builder(ATTEMPTS)
                .description("Attempts made by a retrying inference client")
                .tag("client", this.client)
                .tag("operation", this.operation)
                .tag("outcome", outcome)
                .tag("error", error)
                .register(this.registry);
        }
    }
}
