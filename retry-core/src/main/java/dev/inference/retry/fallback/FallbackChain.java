package dev.inference.retry.fallback;

import dev.inference.retry.ConfigException;
import dev.inference.retry.CoolingDownException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.FallbackExhaustedException;
import dev.inference.retry.Retrier;
import dev.inference.retry.cooldown.CooldownStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The rules of a fallback chain, whatever its members are: which member a call tries next, when it
 * falls over to the next one, and which members it skips. A chain of {@code InferenceClient}s
 * ({@link FallbackClient}) and a chain of Spring AI chat models both make their calls through
 * {@link #call}, giving it how to call member {@code i} ({@link Members}).
 *
 * <p>A call, in this order:
 * <ol>
 * <li>passes over every member that is <em>skipped</em>: one whose provider account is cooling down
 * (the member's cooling probe, such as its retrier's {@linkplain Retrier#cooldownStore() cool-down
 * store}), or that the {@code skip-after} rule holds (it fell over on that many calls in a row; it is
 * then skipped for {@code skip-for}, after which the next call tries it again, and a success ends the
 * skipping). When every member is skipped as the call starts, it calls the one whose skip ends first,
 * which waits as it would alone;</li>
 * <li>calls a member with the word that it has a fallback when a later member is not skipped, so
 * that a member that comes to wait for a {@code Retry-After} or a cool-down gives up with a
 * {@link CoolingDownException} instead of waiting;</li>
 * <li>falls over to the next member on the failures {@link FallbackReason#of} names (as
 * {@link Members#reasonFor} types them), and ends with any other failure as the member threw it;</li>
 * <li>when no member is left, throws a {@link FallbackExhaustedException}.</li>
 * </ol>
 * Each fall-over is logged once at WARN (the chain, the member, the reason and the failure's
 * message, or for a skipped member what skips it and until when) and told to the listeners.
 *
 * <p>Trap: a member's attempts are counted from its failure ({@link ExhaustedException#attempts()},
 * {@link CoolingDownException#attempts()}); a failure that carries no count, such as a 401, counts as
 * one. Thread-safe: the skip state is shared by every call, each call's state lives in that call.
 */
public final class FallbackChain {

    private static final System.Logger logger = System.getLogger(FallbackChain.class.getName());

    private final String name;

    private final List<Member> members;

    /** The skip rule in force, replaced whole by {@link #refreshSkip} and {@link #refreshNoSkip}. */
    private volatile Skip skip;

    /** Each member's own model name, or {@code null} for none, replaced whole by {@link #useModels}. */
    private volatile List<@Nullable String> models;

    private final Clock clock;

    private final List<FallbackListener> listeners;

    private FallbackChain(Builder builder) {
        this.name = builder.name;
        this.members = List.copyOf(builder.members);
        this.skip = builder.skip;
        this.models = noModels(this.members.size());
        this.clock = builder.clock;
        this.listeners = List.copyOf(builder.listeners);
    }

    /**
     * Starts building a chain.
     *
     * @param name the chain's name, such as its bean name; must not be blank
     * @return a builder with no members, no skip rule, the system clock and no listener
     * @throws NullPointerException if {@code name} is {@code null}
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Returns the chain's name.
     *
     * @return the name
     */
    public String name() {
        return this.name;
    }

    /**
     * Returns the members' names, in the order a call tries them.
     *
     * @return the names, unmodifiable
     */
    public List<String> members() {
        return names(this.members);
    }

    private static List<String> names(List<Member> members) {
        return members.stream().map(Member::name).toList();
    }

    /**
     * Returns whether each member is skipped now, and until when, for diagnostics.
     *
     * @return one status per member, in order
     */
    public List<MemberStatus> status() {
        Instant now = this.clock.instant();
        List<MemberStatus> status = new ArrayList<>(this.members.size());
        for (Member member : this.members) {
            Duration cooling = member.cooling();
            Instant until = member.skippedUntil;
            status.add(new MemberStatus(member.name(),
                    Optional.ofNullable(until).filter(now::isBefore),
                    cooling.isZero() ? Optional.empty() : Optional.of(now.plus(cooling))));
        }
        return List.copyOf(status);
    }

    /**
     * Makes one call of the chain, by the rules of the class documentation.
     *
     * @param <T> what a member's call returns
     * @param calls how to call each member
     * @return what the member that answered returned, made by {@link Members#answered}
     * @throws FallbackExhaustedException when every member fell over
     * @throws RuntimeException a member's failure that does not fall over, as the member threw it
     * @throws NullPointerException if {@code calls} is {@code null}
     */
    public <T> T call(Members<T> calls) {
        Objects.requireNonNull(calls, "calls must not be null");
        Call call = start(calls::reasonFor);
        for (int member = call.next(); member >= 0; member = call.next()) {
            T result;
            try {
                result = calls.call(member, call.hasFallback());
            }
            catch (RuntimeException ex) {
                if (!call.fellOver(ex)) {
                    throw ex;
                }
                continue;
            }
            int earlierAttempts = call.attempts();
            call.answered();
            return calls.answered(Objects.requireNonNull(result, "result"), earlierAttempts);
        }
        throw call.exhausted();
    }

    /**
     * Starts a call that its caller drives itself, such as a stream that falls over asynchronously:
     * ask {@link Call#next()} for the member to call, then tell the call how that member's call ended.
     *
     * @param reasons why a member's failure falls over, if it does, such as {@link FallbackReason#of}
     * @return the call's state
     * @throws NullPointerException if {@code reasons} is {@code null}
     */
    public Call start(Function<RuntimeException, Optional<FallbackReason>> reasons) {
        return new Call(Objects.requireNonNull(reasons, "reasons must not be null"));
    }

    /**
     * Replaces the skip rule, as {@link Builder#skip} sets it, while calls run: the next fall-over
     * from a member counts against the new {@code after}, its calls in a row that fell over so far
     * included; a member skipped now stays skipped until the end it was given.
     *
     * @param after the fall-overs in a row, at least 1
     * @param skipFor how long the member is then skipped, positive
     * @throws NullPointerException if {@code skipFor} is {@code null}
     * @throws ConfigException if {@code after} is less than 1 or {@code skipFor} is not positive
     */
    public void refreshSkip(int after, Duration skipFor) {
        this.skip = Skip.of(after, skipFor);
    }

    /**
     * Returns the model name a member is asked for, as {@link #useModels} last set it.
     *
     * @param member the member's index, in the order of {@link #members()}
     * @return its own model name, or empty to keep the request's model
     * @throws IndexOutOfBoundsException if no member has that index
     */
    public Optional<String> modelOf(int member) {
        return Optional.ofNullable(this.models.get(member));
    }

    /**
     * Sets the model name each member is asked for ({@code inference.retry.fallbacks.<chain>.models}),
     * replacing the names in force at once, while calls run: the next member called uses the new name.
     *
     * @param models the model name per member name; a member not named keeps the request's model
     * @throws NullPointerException if {@code models} or one of its entries is {@code null}
     * @throws ConfigException if a name is no member, or a model name is blank; nothing is replaced then
     */
    public void useModels(Map<String, String> models) {
        Objects.requireNonNull(models, "models must not be null");
        List<String> names = members();
        List<@Nullable String> next = noModels(names.size());
        models.forEach((member, model) -> {
            Objects.requireNonNull(model, "model must not be null");
            int index = names.indexOf(member);
            if (index < 0) {
                throw new ConfigException("models." + member, model, "must name a member of the chain, one of " + names);
            }
            if (model.isBlank()) {
                throw new ConfigException("models." + member, model, "must not be blank");
            }
            next.set(index, model);
        });
        this.models = next;
    }

    /** A new list of {@code size} members that have no model name of their own. */
    private static List<@Nullable String> noModels(int size) {
        // A loop, not nCopies: NullAway types a copy of nCopies(size, null) as a list of non-null names.
        List<@Nullable String> models = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            models.add(null);
        }
        return models;
    }

    /**
     * Removes the skip rule while calls run: no member is skipped for its past failures any more, and
     * every skip in force ends now (a cool-down still makes a member skipped).
     */
    public void refreshNoSkip() {
        this.skip = Skip.NONE;
        for (Member member : this.members) {
            member.succeeded();
        }
    }

    private void fellOver(Member member, FallbackReason reason, RuntimeException failure) {
        Skip rule = this.skip;
        if (rule.after() > 0 && member.inARow.incrementAndGet() >= rule.after()) {
            member.skippedUntil = this.clock.instant().plus(rule.skipFor());
        }
        tellFellOver(member, reason, failure, failure.getMessage());
    }

    private void skipped(int index) {
        Member member = this.members.get(index);
        tellFellOver(member, FallbackReason.SKIPPED, null, whySkipped(member));
    }

    /** Logs a fall-over once at WARN, with why it happened, and tells the listeners. */
    private void tellFellOver(Member member, FallbackReason reason, @Nullable RuntimeException failure,
            @Nullable String why) {
        logger.log(Level.WARNING, () -> "Fallback chain '" + this.name + "' fell over from member '" + member.name()
                + "' (" + reason.tag() + "): " + why);
        FallbackEvent event = new FallbackEvent(this.name, member.name(), reason, failure);
        for (FallbackListener listener : this.listeners) {
            try {
                listener.fellOver(event);
            }
            catch (RuntimeException ex) {
                logger.log(Level.WARNING, () -> "FallbackListener " + listener + " threw from fellOver", ex);
            }
        }
    }

    /** What holds a skipped member, and until when: the skip-after rule, a cool-down of its account, or both. */
    private String whySkipped(Member member) {
        Instant now = this.clock.instant();
        Instant until = member.skippedUntil;
        Duration cooling = member.cooling();
        String held = (until != null && now.isBefore(until)) ? "skip-after holds it until " + until : null;
        String cooled = cooling.isZero() ? null : "its provider account cools down until " + now.plus(cooling);
        if (held == null) {
            return (cooled != null) ? cooled : "it was held as the call started";
        }
        return (cooled != null) ? held + ", and " + cooled : held;
    }

    private void tell(FallbackCallEvent event) {
        for (FallbackListener listener : this.listeners) {
            try {
                listener.callEnded(event);
            }
            catch (RuntimeException ex) {
                logger.log(Level.WARNING, () -> "FallbackListener " + listener + " threw from callEnded", ex);
            }
        }
    }

    /** How long member {@code index} is skipped from now: the later of its skip's end and its cool-down's. */
    private Duration held(int index) {
        Member member = this.members.get(index);
        Duration cooling = member.cooling();
        Instant until = member.skippedUntil;
        if (until == null) {
            return cooling;
        }
        Duration skip = Duration.between(this.clock.instant(), until);
        if (skip.isNegative() || skip.isZero()) {
            return cooling;
        }
        return (skip.compareTo(cooling) > 0) ? skip : cooling;
    }

    private int firstFree() {
        int first = 0;
        Duration soonest = held(0);
        for (int i = 1; i < this.members.size(); i++) {
            Duration held = held(i);
            if (held.compareTo(soonest) < 0) {
                first = i;
                soonest = held;
            }
        }
        return first;
    }

    private static int attemptsOf(RuntimeException failure) {
        if (failure instanceof ExhaustedException exhausted) {
            return exhausted.attempts();
        }
        if (failure instanceof CoolingDownException cooling) {
            return cooling.attempts();
        }
        return 1;
    }

    @Override
    public String toString() {
        return "FallbackChain[name=" + this.name + ", members=" + members() + "]";
    }


    /**
     * The state of one call of a chain, for a caller that drives it: {@link #next()} gives the member
     * to call (passing over the skipped ones, in the order of the class documentation), and the caller
     * then tells how that member's call ended: {@link #answered()}, or {@link #fellOver} with its
     * failure. When {@link #next()} gives {@code -1}, the call ends with {@link #exhausted()}. Not
     * thread-safe: one caller at a time, which may change threads between steps.
     */
    public final class Call {

        private final Function<RuntimeException, Optional<FallbackReason>> reasons;

        /** Each called member's failure, in order; made at the first, so that an answer allocates none. */
        private @Nullable List<RuntimeException> failures;

        private int attempts;

        /** The member called last, or -1 before the first. */
        private int current = -1;

        private boolean hasFallback;

        /** The member to call when every member was skipped as the call started, else -1. */
        private int onlyMember = -1;

        Call(Function<RuntimeException, Optional<FallbackReason>> reasons) {
            this.reasons = reasons;
            boolean allSkipped = true;
            for (int i = 0; i < FallbackChain.this.members.size() && allSkipped; i++) {
                allSkipped = !held(i).isZero();
            }
            if (allSkipped) {
                // Nobody is free: the member whose skip ends first answers, as it would alone.
                this.onlyMember = firstFree();
            }
        }

        /**
         * Returns the member to call next, passing over (and telling the listeners of) the skipped ones.
         *
         * @return the member's 0-based index, or -1 when no member is left
         */
        public int next() {
            int count = FallbackChain.this.members.size();
            if (this.onlyMember >= 0) {
                if (this.current >= 0) {
                    return -1;
                }
                for (int i = 0; i < count; i++) {
                    if (i != this.onlyMember) {
                        skipped(i);
                    }
                }
                this.current = this.onlyMember;
                this.hasFallback = false;
                return this.current;
            }
            for (int i = this.current + 1; i < count; i++) {
                if (!held(i).isZero()) {
                    skipped(i);
                    continue;
                }
                this.current = i;
                this.hasFallback = false;
                for (int later = i + 1; later < count && !this.hasFallback; later++) {
                    this.hasFallback = held(later).isZero();
                }
                return i;
            }
            if (this.failures == null && this.current < 0) {
                // Every member came to be skipped since the call started: as if they all were then.
                this.onlyMember = firstFree();
                this.current = this.onlyMember;
                return this.current;
            }
            this.current = count;
            return -1;
        }

        /**
         * Tells whether a later member could answer the member {@link #next()} gave: if so, that member
         * must give up with a {@link CoolingDownException} rather than wait for a provider.
         *
         * @return {@code true} when the member has a fallback
         */
        public boolean hasFallback() {
            return this.hasFallback;
        }

        /**
         * Returns the attempts of the members that fell over so far.
         *
         * @return their sum
         */
        public int attempts() {
            return this.attempts;
        }

        /**
         * Tells that the member {@link #next()} gave answered, and the listeners of it.
         *
         * @throws IllegalStateException if no member is being called
         */
        public void answered() {
            Member member = calledMember();
            member.succeeded();
            // No event to make on the path of a member that answers, unless someone listens.
            if (!FallbackChain.this.listeners.isEmpty()) {
                tell(new FallbackCallEvent(FallbackChain.this.name, Optional.of(member.name())));
            }
        }

        /**
         * Tells that the member {@link #next()} gave failed: the call falls over from it, or ends with
         * the failure as it is.
         *
         * @param failure what the member's call threw
         * @return {@code true} when the call falls over (call {@link #next()}); {@code false} when the
         *     caller must end the call with {@code failure} as it is
         * @throws IllegalStateException if no member is being called
         */
        public boolean fellOver(RuntimeException failure) {
            Member member = calledMember();
            Optional<FallbackReason> reason = this.reasons.apply(failure);
            if (reason.isEmpty()) {
                return false;
            }
            FallbackChain.this.fellOver(member, reason.get(), failure);
            this.failures = (this.failures != null) ? this.failures : new ArrayList<>(2);
            this.failures.add(failure);
            this.attempts += attemptsOf(failure);
            return true;
        }

        /**
         * Returns what the call throws when every member fell over, and tells the listeners.
         *
         * @return the exception, whose cause is the last member's failure
         * @throws IllegalStateException if no member fell over
         */
        public FallbackExhaustedException exhausted() {
            List<RuntimeException> failed = this.failures;
            if (failed == null) {
                throw new IllegalStateException("No member of chain '" + FallbackChain.this.name + "' fell over");
            }
            tell(new FallbackCallEvent(FallbackChain.this.name, Optional.empty()));
            return new FallbackExhaustedException(FallbackChain.this.name, Math.max(1, this.attempts), failed);
        }

        private Member calledMember() {
            if (this.current < 0 || this.current >= FallbackChain.this.members.size()) {
                throw new IllegalStateException("No member of chain '" + FallbackChain.this.name + "' is being called");
            }
            return FallbackChain.this.members.get(this.current);
        }
    }

    /**
     * A skip rule: after {@code after} fall-overs in a row, a member is skipped for {@code skipFor};
     * {@code after} 0 for none.
     */
    private record Skip(int after, Duration skipFor) {

        /** No member is skipped. */
        static final Skip NONE = new Skip(0, Duration.ZERO);

        static Skip of(int after, Duration skipFor) {
            Objects.requireNonNull(skipFor, "skipFor must not be null");
            if (after < 1) {
                throw new ConfigException("skip-after", after, "must be at least 1");
            }
            if (skipFor.isNegative() || skipFor.isZero()) {
                throw new ConfigException("skip-for", skipFor, "must be positive");
            }
            return new Skip(after, skipFor);
        }
    }

    /** One member and its skip state, shared by every call. */
    private static final class Member {

        private final String name;

        private final Supplier<Duration> cooling;

        /** The calls in a row that fell over from this member. */
        final AtomicInteger inARow = new AtomicInteger();

        /** Until when the skip-after rule holds the member, or {@code null}. */
        volatile @Nullable Instant skippedUntil;

        Member(String name, Supplier<Duration> cooling) {
            this.name = name;
            this.cooling = cooling;
        }

        String name() {
            return this.name;
        }

        Duration cooling() {
            Duration cooling = this.cooling.get();
            return (cooling == null || cooling.isNegative()) ? Duration.ZERO : cooling;
        }

        void succeeded() {
            // Two plain reads on the path of a member that answers: no write unless there is something to end.
            if (this.inARow.get() != 0) {
                this.inARow.set(0);
            }
            if (this.skippedUntil != null) {
                this.skippedUntil = null;
            }
        }
    }

    /**
     * Whether a member is skipped now, and until when.
     *
     * @param member the member's name
     * @param skippedUntil the end of the skip-after rule's hold on it, if it holds it now
     * @param coolingUntil the end of its provider account's cool-down, if one is in force
     */
    public record MemberStatus(String member, Optional<Instant> skippedUntil, Optional<Instant> coolingUntil) {

        /**
         * Tells whether the member is skipped now.
         *
         * @return {@code true} when the skip rule holds it or its account is cooling down
         */
        public boolean skipped() {
            return this.skippedUntil.isPresent() || this.coolingUntil.isPresent();
        }
    }

    /**
     * How a chain calls its members, and what differs between kinds of member.
     *
     * @param <T> what a member's call returns
     */
    @FunctionalInterface
    public interface Members<T> {

        /**
         * Calls member {@code index}.
         *
         * @param index the member's 0-based position in the chain
         * @param hasFallback whether a later member could answer: the member must then give up with a
         *     {@link CoolingDownException} rather than wait for a {@code Retry-After} or a cool-down
         * @return the member's answer, not {@code null}
         * @throws RuntimeException the member's failure
         */
        T call(int index, boolean hasFallback);

        /**
         * Returns why a member's failure falls over, if it does. By default {@link FallbackReason#of};
         * a kind of member whose failures reach the chain as a client library's exceptions types them
         * first, as its provider integration does.
         *
         * @param failure what the member's call threw
         * @return the reason, or empty to end the call with the failure as it is
         */
        default Optional<FallbackReason> reasonFor(RuntimeException failure) {
            return FallbackReason.of(failure);
        }

        /**
         * Returns what the chain's call returns for a member's answer, such as the answer stamped with
         * every member's attempts.
         *
         * @param result the member's answer
         * @param earlierAttempts the attempts the members before it made
         * @return what the call returns; by default {@code result}
         */
        default T answered(T result, int earlierAttempts) {
            return result;
        }
    }

    /**
     * Builds a {@link FallbackChain}. Not thread-safe; the built chain keeps no reference to it.
     */
    public static final class Builder {

        private final String name;

        private final List<Member> members = new ArrayList<>();

        private final Set<String> names = new HashSet<>();

        private Skip skip = Skip.NONE;

        private Clock clock = Clock.systemUTC();

        private final List<FallbackListener> listeners = new ArrayList<>();

        private Builder(String name) {
            Objects.requireNonNull(name, "name must not be null");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
        }

        /**
         * Adds a member whose provider account never cools down.
         *
         * @param name the member's name, such as its bean name
         * @return this builder
         * @throws NullPointerException if {@code name} is {@code null}
         * @throws ConfigException if the chain already has a member of that name
         */
        public Builder member(String name) {
            return member(name, () -> Duration.ZERO);
        }

        /**
         * Adds a member, tried after those added before.
         *
         * @param name the member's name, such as its bean name
         * @param cooling how long the member's provider account still cools down, such as the
         *     remaining time its retrier's {@linkplain Retrier#cooldownStore() cool-down store} gives;
         *     {@link Duration#ZERO} when it does not. Asked on every call, so it must answer from memory
         * @return this builder
         * @throws NullPointerException if an argument is {@code null}
         * @throws ConfigException if the chain already has a member of that name
         */
        public Builder member(String name, Supplier<Duration> cooling) {
            Objects.requireNonNull(name, "name must not be null");
            Objects.requireNonNull(cooling, "cooling must not be null");
            if (!this.names.add(name)) {
                throw new ConfigException("members", name, "a chain names each member once, and '" + this.name
                        + "' names '" + name + "' twice");
            }
            this.members.add(new Member(name, cooling));
            return this;
        }

        /**
         * Sets the skip rule: after {@code after} calls in a row that fell over from a member, the chain
         * skips it for {@code skipFor}. Without it, no member is skipped for its past failures.
         *
         * @param after the fall-overs in a row, at least 1
         * @param skipFor how long the member is then skipped, positive
         * @return this builder
         * @throws NullPointerException if {@code skipFor} is {@code null}
         * @throws ConfigException if {@code after} is less than 1 or {@code skipFor} is not positive
         */
        public Builder skip(int after, Duration skipFor) {
            this.skip = Skip.of(after, skipFor);
            return this;
        }

        /**
         * Sets the clock the skip rule is measured on, for tests in virtual time.
         *
         * @param clock the clock; by default the system UTC clock
         * @return this builder
         * @throws NullPointerException if {@code clock} is {@code null}
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /**
         * Adds a listener, told of events in the order listeners were added.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(FallbackListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /**
         * Builds the chain.
         *
         * @return a new chain
         * @throws ConfigException if the chain has fewer than two members
         */
        public FallbackChain build() {
            if (this.members.size() < 2) {
                throw new ConfigException("members", names(this.members), "a chain needs at least two members, and '"
                        + this.name + "' has " + this.members.size());
            }
            return new FallbackChain(this);
        }
    }
}
