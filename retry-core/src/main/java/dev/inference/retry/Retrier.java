package dev.inference.retry;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownSetEvent;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The retry decisions that every call of one client shares: its policy, its name, its listeners,
 * its shutdown signal, its retry budget, its cool-down store, the steps an execution consults
 * (the classification of a failure, the backoff schedule) and the {@link Sleeper} of a caller that
 * blocks. Its {@link Builder} is where every retry setting is made; {@link RetryClient#of} and
 * {@link BlockingRetry#of} take the built retrier.
 *
 * <p>A retrier does not make attempts and does not wait. Each call {@linkplain #start starts} a
 * {@link RetryExecution} that holds the call's state and answers, after each failed attempt, "give
 * up with this exception" or "retry after this delay". The caller makes the attempts and waits the
 * delays its own way, usually through one of the core's two loops: {@link BlockingRetry} (behind
 * {@link RetryClient}) blocks its thread with the retrier's sleeper, {@link AsyncRetry} ends its waits
 * on a {@link WaitScheduler} and ignores the sleeper. Both get exactly the same decisions and listener
 * events.
 *
 * <p>Thread-safe. Its settings are immutable, and {@link #refresh} replaces them all at once with
 * those of another retrier, with one volatile write: a call reads them once at each of its steps
 * ({@link RetryExecution}), so that each decision is made under one retrier's settings, never half of
 * two, and a call in progress decides its next step with the settings in force then. Trap: the
 * {@linkplain Builder#sleeper sleeper} of a {@link BlockingRetry} is the one it was made with.
 */
public final class Retrier {

    private static final String DEFAULT_NAME = "default";

    private final Policy policy;

    private final String name;

    /** The contained listeners, or {@code null} when there are none, so that no event is made. */
    private final @Nullable RetryListener listener;

    private final FailureClassifier classifier;

    private final DelaySchedule schedule;

    private final @Nullable ShutdownSignal shutdownSignal;

    private final @Nullable RetryBudget budget;

    private final @Nullable CooldownStore cooldownStore;

    private final @Nullable AttemptObserver observer;

    private final Sleeper sleeper;

    private final String cooldownKey;

    /** Whether {@link #rateLimited} cools the key: a store is set, and rate limits are honoured. */
    private final boolean readsRateLimits;

    /** How long after a cool-down's end the calls it held are spread; zero: all at its end. */
    private final Duration releaseSpread;

    /** Where the release of a cool-down's calls is drawn from, or {@code null} for the thread's. */
    private final @Nullable RandomGenerator random;

    private final Timeouts timeouts;

    private final AttemptScope.Timer timer;

    /** The events of a first attempt that succeeded, one per operation: the same for every call. */
    private final AttemptEvent firstInvokeSucceeded;

    private final AttemptEvent firstStreamSucceeded;

    /** Whether a call may retry at all; {@code false}: one attempt, its failure as it is. */
    private final boolean enabled;

    /**
     * The settings in force: a private copy, of this retrier's own settings until {@link #refresh} puts
     * one of another's in their place. A copy is never refreshed itself: its own fields are the settings,
     * and it is its own {@code current}.
     */
    private volatile Retrier current;

    private Retrier(Builder builder) {
        this.policy = builder.policy;
        this.name = builder.name;
        this.listener = builder.listeners.isEmpty() ? null : new ContainedListener(builder.listeners);
        this.classifier = builder.classifier;
        this.schedule = (builder.schedule != null) ? builder.schedule
                : DelaySchedule.jittered(builder.policy, builder.random);
        this.shutdownSignal = builder.shutdownSignal;
        this.budget = builder.budget;
        this.cooldownStore = builder.cooldownStore;
        this.observer = builder.observer;
        this.sleeper = builder.sleeper;
        this.cooldownKey = (builder.cooldownKey != null) ? builder.cooldownKey : builder.name;
        this.readsRateLimits = builder.cooldownStore != null && builder.honourRateLimits;
        this.releaseSpread = builder.releaseSpread;
        this.random = builder.random;
        this.timeouts = builder.timeouts;
        this.timer = (builder.timer != null) ? builder.timer : SharedTimer.TIMER;
        this.firstInvokeSucceeded = new AttemptEvent(this.name, Operation.INVOKE, 1, null, false);
        this.firstStreamSucceeded = new AttemptEvent(this.name, Operation.STREAM, 1, null, false);
        this.enabled = builder.enabled;
        // Never this retrier itself: its accessors read the settings in force, which a refresh replaces while
        // a step that took them as its snapshot still decides.
        this.current = new Retrier(this);
    }

    /** A copy of another retrier's settings, for {@link #refresh}: private, so never refreshed itself. */
    private Retrier(Retrier settings) {
        this.policy = settings.policy;
        this.name = settings.name;
        this.listener = settings.listener;
        this.classifier = settings.classifier;
        this.schedule = settings.schedule;
        this.shutdownSignal = settings.shutdownSignal;
        this.budget = settings.budget;
        this.cooldownStore = settings.cooldownStore;
        this.observer = settings.observer;
        this.sleeper = settings.sleeper;
        this.cooldownKey = settings.cooldownKey;
        this.readsRateLimits = settings.readsRateLimits;
        this.releaseSpread = settings.releaseSpread;
        this.random = settings.random;
        this.timeouts = settings.timeouts;
        this.timer = settings.timer;
        this.firstInvokeSucceeded = settings.firstInvokeSucceeded;
        this.firstStreamSucceeded = settings.firstStreamSucceeded;
        this.enabled = settings.enabled;
        this.current = this;
    }

    /**
     * Starts building a retrier.
     *
     * @param policy the retry policy, valid by construction
     * @return a builder with the name {@code "default"}, no listener, random jitter and real waits
     * @throws NullPointerException if {@code policy} is {@code null}
     */
    public static Builder builder(Policy policy) {
        return new Builder(policy);
    }

    /**
     * Starts the retry decisions of one call, whose first attempt is about to be made or has just
     * been made.
     *
     * @param operation the kind of call
     * @param context the call's context, shared by every attempt
     * @return the call's execution, at attempt 1; not thread-safe, to be used by the one caller
     * @throws NullPointerException if an argument is {@code null}
     */
    public RetryExecution start(Operation operation, CallContext context) {
        return new RetryExecution(this, Objects.requireNonNull(operation, "operation must not be null"),
                Objects.requireNonNull(context, "context must not be null"));
    }

    /**
     * Replaces every setting of this retrier at once with those of {@code next}, as it is now: its
     * policy, retry budget, cool-down store and key, rate-limit and release settings, timeouts, timer,
     * listeners, observer and shutdown signal. Calls started afterwards use them, and so does the next
     * step of every call in progress (its attempts already made count against the new policy's
     * {@code maxAttempts}); a wait already scheduled is not shortened. Any thread may call it; the
     * holders of this retrier need not change anything.
     *
     * @param next the retrier whose settings to adopt, of the same name; it stays as it is
     * @throws NullPointerException if {@code next} is {@code null}
     * @throws IllegalArgumentException if {@code next} has another name: the listeners count a client
     *     by its name, which cannot change while its calls run
     */
    public void refresh(Retrier next) {
        Objects.requireNonNull(next, "next must not be null");
        if (!next.name.equals(this.name)) {
            throw new IllegalArgumentException("Retrier '" + this.name + "' cannot adopt the settings of retrier '"
                    + next.name + "': the name is the client's, and stays");
        }
        this.current = new Retrier(next.current);
    }

    /** The settings in force, read once per step of a call: one volatile read. */
    Retrier current() {
        return this.current;
    }

    /**
     * Tells whether calls retry: {@code false} when the retrier was built with
     * {@link Builder#enabled(boolean) enabled(false)}, so that each call makes one attempt and fails as
     * that attempt failed.
     *
     * @return {@code true} unless retries are switched off
     */
    public boolean isEnabled() {
        return this.current.enabled;
    }

    /** Whether these settings, not necessarily those in force, let a call retry. */
    boolean retries() {
        return this.enabled;
    }

    /**
     * Returns the retry policy in force.
     *
     * @return the policy
     */
    public Policy policy() {
        return this.current.policy;
    }

    /**
     * Returns the name reported to listeners, such as the Spring bean name.
     *
     * @return the name
     */
    public String name() {
        return this.name;
    }

    /**
     * Returns the signal that ends this retrier's waits when the application shuts down.
     *
     * @return the signal, or empty when none was set
     */
    public Optional<ShutdownSignal> shutdownSignal() {
        return Optional.ofNullable(this.current.shutdownSignal);
    }

    /**
     * Returns the retry budget that this retrier's calls share.
     *
     * @return the budget, or empty when retries are limited by the policy alone
     */
    public Optional<RetryBudget> budget() {
        return Optional.ofNullable(this.current.budget);
    }

    /**
     * Returns where this retrier's cool-downs are kept.
     *
     * @return the store, or empty when provider cool-downs are not shared
     */
    public Optional<CooldownStore> cooldownStore() {
        return Optional.ofNullable(this.current.cooldownStore);
    }

    /**
     * Returns the provider account whose cool-down this retrier's calls share: the key given with
     * the store, or the retrier's name.
     *
     * @return the cool-down key
     */
    public String cooldownKey() {
        return this.current.cooldownKey;
    }

    /**
     * Tells whether {@link #rateLimited} cools anything: a cool-down store is set and rate limits are
     * {@linkplain Builder#honourRateLimits honoured}. A transport that holds the retrier may read the
     * rate-limit headers only then, so that without a store a response costs nothing more.
     *
     * @return {@code true} when a response's rate-limit headers are worth reading
     */
    public boolean readsRateLimits() {
        return this.current.readsRateLimits;
    }

    /**
     * Records that a response of this retrier's provider said, with its rate-limit headers, that the
     * account has no requests or no tokens left for a while (see
     * {@link dev.inference.failure.RateLimitHeaders}): cools the key for that long, as a
     * {@code Retry-After} does (capped at {@link Backoff#RETRY_AFTER_CAP}, never shortening a
     * cool-down in force, shared through the store), with the reason {@link CooldownReason#RATE_LIMIT},
     * and tells the listeners. Every call of the key then waits before its next attempt, the first
     * included. For a successful response as for a failed one; any thread may call it.
     *
     * <p>Does nothing when {@link #readsRateLimits()} is {@code false} or the duration is not
     * positive. {@link RetryClient} calls it for the responses its inner client reports
     * ({@link dev.inference.client.InferenceResponse#rateLimitedFor()} and the like); a transport
     * that holds the retrier itself calls it for each response it reads.
     *
     * @param resetIn how long until the limit resets, from when the response was read
     * @throws NullPointerException if {@code resetIn} is {@code null}
     * @throws Error whatever a listener threw as an {@link Error}; runtime exceptions are contained
     */
    public void rateLimited(Duration resetIn) {
        Objects.requireNonNull(resetIn, "resetIn must not be null");
        Retrier now = this.current;
        if (now.readsRateLimits) {
            now.coolDown(resetIn, CooldownReason.RATE_LIMIT);
        }
    }

    /** How a caller that blocks its thread ({@link BlockingRetry}) waits out the delays. */
    Sleeper sleeper() {
        return this.sleeper;
    }

    /**
     * Tells whether a call would wait for a cool-down before its first attempt. Answers from memory;
     * the success path of a client whose provider is not cooling down costs a look-up at most.
     *
     * @return {@code true} when a cool-down of this retrier's key is in force
     */
    public boolean isCoolingDown() {
        return !cooldownRemaining().isZero();
    }

    /** The event of a successful attempt; that of a first attempt is made once per operation. */
    AttemptEvent succeeded(Operation operation, int attempt) {
        if (attempt == 1) {
            return (operation == Operation.INVOKE) ? this.firstInvokeSucceeded : this.firstStreamSucceeded;
        }
        return new AttemptEvent(this.name, operation, attempt, null, false);
    }

    @Nullable AttemptObserver observer() {
        return this.observer;
    }

    Duration cooldownRemaining() {
        Retrier now = this.current;
        return (now.cooldownStore != null) ? now.cooldownStore.remaining(now.cooldownKey) : Duration.ZERO;
    }

    /**
     * Returns how long a call waits for a cool-down that ends in {@code remaining}: that long, plus a
     * share of the {@linkplain Builder#cooldownReleaseSpread release spread} drawn at random, unless
     * the share would carry the wait to {@code deadline} or past it.
     */
    Duration cooldownWait(Duration remaining, Optional<Duration> deadline) {
        if (this.releaseSpread.isZero()) {
            return remaining;
        }
        RandomGenerator source = (this.random != null) ? this.random : ThreadLocalRandom.current();
        long share = (long) (source.nextDouble() * this.releaseSpread.toNanos());
        Duration spread = remaining.plusNanos(share);
        return (deadline.isPresent() && deadline.get().compareTo(spread) <= 0) ? remaining : spread;
    }

    /**
     * Returns how long after a cool-down's end the calls it held are spread.
     *
     * @return the spread; zero when every call makes its attempt at the cool-down's end
     */
    public Duration cooldownReleaseSpread() {
        return this.current.releaseSpread;
    }

    /**
     * Returns the timeouts the calls of this retrier act on.
     *
     * @return the timeouts; {@link Timeouts#none()} unless set
     */
    public Timeouts timeouts() {
        return this.current.timeouts;
    }

    /**
     * Returns the timer that times the attempts and watches the streams of this retrier's blocking
     * calls ({@link RetryClient}), and that an integration timing its own exchanges may use.
     *
     * @return the timer set on the builder, or by default one daemon thread shared by the JVM
     */
    public AttemptScope.Timer timer() {
        return this.current.timer;
    }

    /**
     * Tells the listeners that a stream of this retrier stalled past {@code stream-idle-timeout} and
     * was ended (a {@link StreamStalledEvent}). For an integration that watches its own streams, as
     * {@link RetryClient} does for its inner client's. Any thread may call it.
     *
     * @param idleTimeout the idle timeout the stream ran past, positive
     * @throws NullPointerException if {@code idleTimeout} is {@code null}
     * @throws IllegalArgumentException if {@code idleTimeout} is not positive
     * @throws Error whatever a listener threw as an {@link Error}; runtime exceptions are contained
     */
    public void streamStalled(Duration idleTimeout) {
        StreamStalledEvent event = new StreamStalledEvent(this.name, idleTimeout);
        RetryListener listeners = this.current.listener;
        if (listeners != null) {
            listeners.streamStalled(event);
        }
    }

    void coolDown(Duration duration, CooldownReason reason) {
        if (this.cooldownStore != null && !duration.isNegative() && !duration.isZero()) {
            Duration capped = (duration.compareTo(Backoff.RETRY_AFTER_CAP) > 0) ? Backoff.RETRY_AFTER_CAP : duration;
            this.cooldownStore.coolDown(this.cooldownKey, capped, reason);
            if (this.listener != null) {
                this.listener.cooldownSet(new CooldownSetEvent(this.name, this.cooldownKey, capped, reason));
            }
        }
    }

    @Nullable RetryBudget budgetOrNull() {
        return this.budget;
    }

    @Nullable RetryListener listener() {
        return this.listener;
    }

    FailureClassifier classifier() {
        return this.classifier;
    }

    DelaySchedule schedule() {
        return this.schedule;
    }

    @Override
    public String toString() {
        return "Retrier[name=" + this.name + ", policy=" + this.current.policy + "]";
    }

    /**
     * Classifies the failure of an attempt: the step an execution consults first.
     */
    @FunctionalInterface
    interface FailureClassifier {

        /** The classification every client uses unless a test replaces it. */
        FailureClassifier STANDARD = Classification::of;

        Classification classify(Throwable failure);
    }

    /**
     * Computes the wait before the next attempt: the step an execution consults once it has decided
     * to retry.
     */
    @FunctionalInterface
    interface DelaySchedule {

        Duration delay(int failedAttempt, Classification failure);

        /**
         * The policy's {@link Backoff} with jitter drawn from {@code random}, or from the calling
         * thread's {@link ThreadLocalRandom} when {@code random} is {@code null}, honouring the
         * provider's {@code Retry-After}.
         */
        static DelaySchedule jittered(Policy policy, @Nullable RandomGenerator random) {
            return (failedAttempt, failure) -> Backoff.delay(policy, failedAttempt,
                    Backoff.jitter((random != null) ? random : ThreadLocalRandom.current()),
                    failure.retryAfter().orElse(null));
        }
    }

    /**
     * Builds a {@link Retrier}. Not thread-safe; the built retrier keeps no reference to the builder.
     */
    public static final class Builder {

        private final Policy policy;

        private String name = DEFAULT_NAME;

        private final List<RetryListener> listeners = new ArrayList<>();

        private @Nullable RandomGenerator random;

        private FailureClassifier classifier = FailureClassifier.STANDARD;

        private @Nullable DelaySchedule schedule;

        private @Nullable ShutdownSignal shutdownSignal;

        private @Nullable RetryBudget budget;

        private @Nullable CooldownStore cooldownStore;

        private @Nullable AttemptObserver observer;

        private Sleeper sleeper = Sleeper.system();

        private @Nullable String cooldownKey;

        private boolean honourRateLimits = true;

        private Duration releaseSpread = Duration.ZERO;

        private Timeouts timeouts = Timeouts.none();

        private AttemptScope.@Nullable Timer timer;

        private boolean enabled = true;

        private Builder(Policy policy) {
            this.policy = Objects.requireNonNull(policy, "policy must not be null");
        }

        /**
         * Sets the name reported to listeners in every {@link AttemptEvent}.
         *
         * @param name the client's name, such as its bean name; must not be blank
         * @return this builder
         * @throws NullPointerException if {@code name} is {@code null}
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name must not be null");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /**
         * Adds a listener. Listeners are told of each event in the order they were added; one that
         * throws a {@link RuntimeException} is logged and skipped, never breaking the call.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(RetryListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /**
         * Sets the source of jitter: each delay's factor is {@code 0.9 + 0.2 × nextDouble()} (see
         * {@link Backoff#jitter}). By default the calling thread's {@link ThreadLocalRandom} is used.
         * The generator is called from every thread that makes calls, so it must be thread-safe, or
         * the retrier confined to one thread.
         *
         * @param random the generator
         * @return this builder
         * @throws NullPointerException if {@code random} is {@code null}
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random must not be null");
            return this;
        }

        /**
         * Sets the signal that ends every wait at once and refuses every later retry when the
         * application shuts down. By default there is none.
         *
         * @param shutdownSignal the signal, usually shared by every client of the application
         * @return this builder
         * @throws NullPointerException if {@code shutdownSignal} is {@code null}
         */
        public Builder shutdownSignal(ShutdownSignal shutdownSignal) {
            this.shutdownSignal = Objects.requireNonNull(shutdownSignal, "shutdownSignal must not be null");
            return this;
        }

        /**
         * Sets the retry budget that this retrier's calls share: a retry is then also refused while
         * the budget is below half, ending the call with a {@link RetryBudgetExhaustedException}. By
         * default there is none.
         *
         * @param budget the budget; give each retrier its own
         * @return this builder
         * @throws NullPointerException if {@code budget} is {@code null}
         */
        public Builder budget(RetryBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget must not be null");
            return this;
        }

        /**
         * Shares the cool-downs that providers ask for through a store: a {@code Retry-After} that
         * one call receives then delays every call of every retrier with the same key and store.
         * By default there is no store, and a call honours only its own {@code Retry-After}.
         *
         * @param store where the cool-downs are kept
         * @param key the provider account this retrier calls, or {@code null} for its name
         * @return this builder
         * @throws NullPointerException if {@code store} is {@code null}
         * @throws IllegalArgumentException if {@code key} is blank
         */
        public Builder cooldown(CooldownStore store, @Nullable String key) {
            if (key != null && key.isBlank()) {
                throw new IllegalArgumentException("key must not be blank");
            }
            this.cooldownStore = Objects.requireNonNull(store, "store must not be null");
            this.cooldownKey = key;
            return this;
        }

        /**
         * Sets whether the rate limits that responses report (see {@link Retrier#rateLimited}) cool
         * the key of the {@linkplain #cooldown cool-down store}, as a {@code Retry-After} does. On
         * by default: the provider chose the wait. Without a store it changes nothing.
         *
         * @param honour {@code false} to cool the key for {@code Retry-After}s only
         * @return this builder
         */
        public Builder honourRateLimits(boolean honour) {
            this.honourRateLimits = honour;
            return this;
        }

        /**
         * Spreads the calls that a cool-down held over {@code spread} after it ends, so that a queue of
         * them does not reach the provider at once: each call held makes its attempt at a moment drawn
         * uniformly from {@code [end, end + spread)}, with the randomness of {@link #random}. When a call's
         * deadline falls in that span, the call makes its attempt at the end itself. Once the first of
         * them is answered with {@code remaining: 0} (see {@link Retrier#rateLimited}) or a 429, the rest
         * wait for the new cool-down instead of earning a 429 each. By default zero: every call held makes
         * its attempt when the cool-down ends. Without a {@linkplain #cooldown store} it changes nothing.
         *
         * @param spread how long the release lasts; zero or positive, at most five minutes
         * @return this builder
         * @throws NullPointerException if {@code spread} is {@code null}
         * @throws ConfigException if {@code spread} is negative or longer than five minutes
         */
        public Builder cooldownReleaseSpread(Duration spread) {
            Objects.requireNonNull(spread, "spread must not be null");
            if (spread.isNegative() || spread.compareTo(Backoff.RETRY_AFTER_CAP) > 0) {
                throw new ConfigException("cooldownReleaseSpread", spread,
                        "must be zero or positive, and at most " + Backoff.RETRY_AFTER_CAP);
            }
            this.releaseSpread = spread;
            return this;
        }

        /**
         * Sets the timeouts that the calls act on: an attempt that runs past its timeout is abandoned
         * and retried, a stream silent past its idle timeout ends (see {@link Timeouts}). By default
         * {@link Timeouts#none()}.
         *
         * @param timeouts the timeouts, valid by construction
         * @return this builder
         * @throws NullPointerException if {@code timeouts} is {@code null}
         */
        public Builder timeouts(Timeouts timeouts) {
            this.timeouts = Objects.requireNonNull(timeouts, "timeouts must not be null");
            return this;
        }

        /**
         * Sets the timer that times the attempts and watches the streams when {@link #timeouts} are
         * set, such as one daemon {@link java.util.concurrent.ScheduledThreadPoolExecutor} an
         * application shares and shuts down (see {@link AttemptScope.Timer#of}). By default one daemon
         * thread shared by the JVM, started when first needed.
         *
         * @param timer the timer, whose actions must never run on a transport's own threads
         * @return this builder
         * @throws NullPointerException if {@code timer} is {@code null}
         */
        public Builder timer(AttemptScope.Timer timer) {
            this.timer = Objects.requireNonNull(timer, "timer must not be null");
            return this;
        }

        /**
         * Sets the observer that surrounds each attempt with an observation of its own, such as a
         * trace span. By default there is none.
         *
         * @param observer the observer
         * @return this builder
         * @throws NullPointerException if {@code observer} is {@code null}
         */
        public Builder observer(AttemptObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer must not be null");
            return this;
        }

        /**
         * Sets how a caller that blocks its thread ({@link RetryClient}, {@link BlockingRetry}) waits
         * out the delays, backoff and cool-down alike. A caller that schedules its waits on a timer
         * (a non-blocking one) ignores it. By default {@link Sleeper#system()}, which really waits and
         * which the {@linkplain #shutdownSignal shutdown signal} wakes; tests pass one that advances a
         * virtual clock.
         *
         * @param sleeper the sleeper
         * @return this builder
         * @throws NullPointerException if {@code sleeper} is {@code null}
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /**
         * Sets whether calls retry. With {@code false}, each call makes one attempt and ends as that
         * attempt ended: a failure reaches the caller as the attempt threw it, retryable or not (never
         * an {@link ExhaustedException}), and the listeners hear of the attempt. Build such a retrier
         * without a budget, a cool-down store or timeouts, which it would otherwise still apply: it is
         * what a client's retries switched off at run time are ({@link Retrier#refresh}). By default
         * {@code true}.
         *
         * @param enabled {@code false} to make one attempt per call
         * @return this builder
         */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        Builder classifier(FailureClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier must not be null");
            return this;
        }

        Builder schedule(DelaySchedule schedule) {
            this.schedule = Objects.requireNonNull(schedule, "schedule must not be null");
            return this;
        }

        /**
         * Builds the retrier. The builder's listeners are copied, so adding more afterwards does not
         * change the built retrier.
         *
         * @return a new retrier
         */
        public Retrier build() {
            return new Retrier(this);
        }
    }
}
