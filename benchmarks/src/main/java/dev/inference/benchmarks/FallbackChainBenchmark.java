package dev.inference.benchmarks;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.fallback.FallbackClient;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The price of a fallback chain whose first member answers: a call of the chain against a call of that
 * member directly, both over the same retrying client of a call that returns a preallocated response.
 * The overhead is {@code chain − member}; the goal is at most 100 ns.
 *
 * <p>With {@code store = local}, each member has a cool-down store (none in force), so the chain asks
 * it whether the first member, and then the second, is cooling down: the look-ups a chain makes on
 * every call in an application with {@code inference.retry.cooldown.store} set.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch" })
public class FallbackChainBenchmark {

    /** One thread's member and chain. */
    @State(Scope.Thread)
    public static class Calls {

        /** Whether the members have a cool-down store: {@code none} or {@code local}. */
        @Param({ "none", "local" })
        public String store = "none";

        final InferenceRequest request = InferenceRequest.of("bench-model", "Hello");

        final CallContext context = CallContext.background();

        InferenceClient member;

        InferenceClient chain;

        /** Builds the members and the chain once, before the first warm-up iteration. */
        @Setup
        public void setUp() {
            @Nullable LocalCooldownStore cooldowns = "local".equals(this.store) ? LocalCooldownStore.create() : null;
            this.member = retrying("first", cooldowns);
            this.chain = FallbackClient.builder("chain")
                .member("first", this.member)
                .member("second", retrying("second", cooldowns))
                .build();
        }

        private static RetryClient retrying(String name, @Nullable LocalCooldownStore cooldowns) {
            Retrier.Builder retrier = Retriers.retrier(3).name(name);
            if (cooldowns != null) {
                retrier.cooldown(cooldowns, name);
            }
            return RetryClient.of(new FixedResponseClient(InferenceResponse.of("Hi")), retrier.build());
        }
    }

    /**
     * The first member, called directly.
     *
     * @param calls the member and the chain
     * @return the response, which JMH consumes
     */
    @Benchmark
    public InferenceResponse member(Calls calls) {
        return calls.member.invoke(calls.request, calls.context);
    }

    /**
     * The chain, whose first member answers.
     *
     * @param calls the member and the chain
     * @return the response, which JMH consumes
     */
    @Benchmark
    public InferenceResponse chain(Calls calls) {
        return calls.chain.invoke(calls.request, calls.context);
    }
}
