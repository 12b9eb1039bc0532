package dev.inference.retry.fallback;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.retry.ConfigException;
import dev.inference.retry.FallbackExhaustedException;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.StampedStreamReader;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * An {@link InferenceClient} that answers a call from the first of its members that can: a fallback
 * chain of clients, each retried on its own (usually a {@link RetryClient}), by the rules of
 * {@link FallbackChain}.
 *
 * <p>Every member gets the same request, copied with the member's own model name where one is set
 * (the input is never changed), and the caller's context, marked
 * {@linkplain CallContext#withFallback() with a fallback} while a later member could answer. The
 * response is the answering member's, stamped with the attempts of every member. A stream falls over
 * only while it is being established: once a member has returned its reader, the reader is the
 * caller's, and its failures are final (stamped, like a response, with every member's attempts).
 *
 * <p>Trap: a member that is a {@link RetryClient} is skipped while its cool-down store says its key is
 * cooling down; any other member is never skipped for a cool-down, only by the chain's
 * {@code skip-after} rule. Immutable and thread-safe.
 */
public final class FallbackClient implements InferenceClient {

    private static final Supplier<Duration> NEVER_COOLING = () -> Duration.ZERO;

    private final FallbackChain chain;

    private final List<InferenceClient> members;

    private FallbackClient(FallbackChain chain, List<InferenceClient> members) {
        this.chain = chain;
        this.members = members;
    }

    /**
     * Starts building a chain of clients.
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
     * Returns how long a client's provider account still cools down, as the chain asks of each
     * member: a {@link RetryClient}'s cool-down store's remaining time for its key, zero for any
     * other client.
     *
     * @param client the member
     * @return the probe the chain asks on every call
     */
    public static Supplier<Duration> coolingOf(InferenceClient client) {
        if (client instanceof RetryClient retrying) {
            Retrier retrier = retrying.retrier();
            String key = retrier.cooldownKey();
            return retrier.cooldownStore().<Supplier<Duration>>map((store) -> () -> store.remaining(key))
                .orElse(NEVER_COOLING);
        }
        return NEVER_COOLING;
    }

    /**
     * Returns the chain's rules and its members' skip state.
     *
     * @return the chain
     */
    public FallbackChain chain() {
        return this.chain;
    }

    /**
     * Answers from the first member that can, by the rules of {@link FallbackChain}.
     *
     * @return the answering member's response stamped with the attempts of every member
     * @throws FallbackExhaustedException when every member fell over
     * @throws RuntimeException a member's failure that does not fall over (a bad request, a
     *     cancellation, the deadline, a shutdown), as the member threw it
     */
    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        return call(request, context, "invoke", InferenceClient::invoke,
                (response, earlier) -> response.withAttempts(Math.max(1, response.attempts()) + earlier));
    }

    /**
     * Establishes a stream from the first member that can, by the rules of {@link FallbackChain};
     * once established, the stream's failures are final.
     *
     * @return the answering member's reader, whose result is stamped with the attempts of every member
     * @throws FallbackExhaustedException when every member fell over before its stream was established
     * @throws RuntimeException a member's failure that does not fall over, as the member threw it
     */
    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        return call(request, context, "stream", InferenceClient::stream, StampedStreamReader::addingEarlier);
    }

    /**
     * Walks the members for one kind of call: {@code kind} makes a member's call ({@code what} names it
     * in the message when a member returns {@code null}), {@code addingEarlier} adds the attempts of
     * the members that fell over to the answering member's result.
     */
    private <T> T call(InferenceRequest request, CallContext context, String what, MemberCall<T> kind,
            BiFunction<T, Integer, T> addingEarlier) {
        Objects.requireNonNull(request, "request must not be null");
        Objects.requireNonNull(context, "context must not be null");
        return this.chain.call(new FallbackChain.Members<T>() {

            @Override
            public T call(int index, boolean hasFallback) {
                return Objects.requireNonNull(kind.call(FallbackClient.this.members.get(index),
                        requestFor(index, request), hasFallback ? context.withFallback() : context),
                        () -> "A member of the fallback chain returned null from " + what);
            }

            @Override
            public T answered(T result, int earlierAttempts) {
                return (earlierAttempts == 0) ? result : addingEarlier.apply(result, earlierAttempts);
            }
        });
    }

    private InferenceRequest requestFor(int member, InferenceRequest request) {
        return this.chain.modelOf(member)
            .filter((model) -> !model.equals(request.model()))
            .map((model) -> InferenceRequest.of(model, request.input()))
            .orElse(request);
    }

    @Override
    public String toString() {
        return "FallbackClient[name=" + this.chain.name() + ", members=" + this.chain.members() + "]";
    }

    /** A member's call of one kind: {@link InferenceClient#invoke} or {@link InferenceClient#stream}. */
    @FunctionalInterface
    private interface MemberCall<T> {

        T call(InferenceClient member, InferenceRequest request, CallContext context);
    }

    /**
     * Builds a {@link FallbackClient}. Not thread-safe; the built client keeps no reference to it.
     */
    public static final class Builder {

        private final FallbackChain.Builder chain;

        private final List<InferenceClient> members = new ArrayList<>();

        private final Map<String, String> models = new HashMap<>();

        private Builder(String name) {
            this.chain = FallbackChain.builder(name);
        }

        /**
         * Adds a member, tried after those added before; skipped while it is cooling down when it is a
         * {@link RetryClient} with a cool-down store (see {@link #coolingOf}).
         *
         * @param name the member's name, such as its bean name
         * @param client the member
         * @return this builder
         * @throws NullPointerException if an argument is {@code null}
         * @throws ConfigException if the chain already has a member of that name
         */
        public Builder member(String name, InferenceClient client) {
            Objects.requireNonNull(client, "client must not be null");
            this.chain.member(name, coolingOf(client));
            this.members.add(client);
            return this;
        }

        /**
         * Gives a member its own model name: its requests are copies with that model.
         *
         * @param member the member's name
         * @param model the model the member is asked for; must not be blank
         * @return this builder
         * @throws NullPointerException if an argument is {@code null}
         * @throws ConfigException if {@code model} is blank
         */
        public Builder model(String member, String model) {
            Objects.requireNonNull(member, "member must not be null");
            Objects.requireNonNull(model, "model must not be null");
            if (model.isBlank()) {
                throw new ConfigException("models." + member, model, "must not be blank");
            }
            this.models.put(member, model);
            return this;
        }

        /**
         * Sets the skip rule (see {@link FallbackChain.Builder#skip}).
         *
         * @param after the fall-overs in a row, at least 1
         * @param skipFor how long the member is then skipped, positive
         * @return this builder
         * @throws NullPointerException if {@code skipFor} is {@code null}
         * @throws ConfigException if a value is out of range
         */
        public Builder skip(int after, Duration skipFor) {
            this.chain.skip(after, skipFor);
            return this;
        }

        /**
         * Sets the clock the skip rule is measured on, for tests in virtual time.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if {@code clock} is {@code null}
         */
        public Builder clock(Clock clock) {
            this.chain.clock(clock);
            return this;
        }

        /**
         * Adds a listener of fall-overs and calls.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(FallbackListener listener) {
            this.chain.listener(listener);
            return this;
        }

        /**
         * Builds the client.
         *
         * @return a new client
         * @throws ConfigException if the chain has fewer than two members, or a model is given for a
         *     name that is no member
         */
        public FallbackClient build() {
            FallbackChain chain = this.chain.build();
            chain.useModels(this.models);
            return new FallbackClient(chain, List.copyOf(this.members));
        }
    }
}
