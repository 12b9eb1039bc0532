package dev.inference.sample.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.cooldown.redis.RedisCooldownStore;
import dev.inference.retry.cooldown.redis.RedisServer;
import dev.inference.sample.cluster.Cluster.Instance;
import dev.inference.sample.cluster.RateLimitingProvider.Arrival;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several instances of the sample app, each a Spring application context of its own, call one provider
 * that rate-limits their shared account: for two seconds from its first request it answers 429 with
 * {@code Retry-After: 2}, then 200. Each instance starts a call every 100 ms during the window, the
 * instances in turn, 18 calls each. What the provider receives during the window, per instance, with
 * the cool-downs shared through one real {@code redis-server} on loopback, kept by each instance to
 * itself ({@code local}), or not kept at all; and how long a cool-down set by one instance takes to
 * reach the others through Redis. The retry policy's own delays are short (50 ms), so that the only
 * long waits are the cool-downs and {@code Retry-After}s. The numbers of a run, and what they mean,
 * are in {@code docs/cooldown.md}.
 */
// A guard against a hang, not a timing assertion.
@Timeout(90)
class SharedCooldownIntegrationTests {

    private static final Duration WINDOW = Duration.ofSeconds(2);

    private static final int RETRY_AFTER_SECONDS = 2;

    private static final Duration CALL_PERIOD = Duration.ofMillis(100);

    private static final int CALLS_PER_INSTANCE = 18;

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private static final int PROPAGATION_TRIALS = 100;

    private static final Duration PROPAGATION_BOUND = Duration.ofMillis(50);

    private final Cluster cluster = new Cluster();

    private RateLimitingProvider provider;

    @BeforeEach
    void startProvider() throws Exception {
        this.provider = this.cluster.open(RateLimitingProvider.start(WINDOW, RETRY_AFTER_SECONDS));
    }

    @AfterEach
    void closeEverything() {
        this.cluster.close();
    }

    private List<String> instanceProperties(String... more) {
        List<String> properties = new ArrayList<>(List.of("--sample.inference.base-url=" + this.provider.baseUrl(),
                "--inference.retry.stable-retries=1", "--inference.retry.stable-delay=50ms",
                "--inference.retry.max-attempts=3", "--inference.retry.max-delay=200ms"));
        properties.addAll(Arrays.asList(more));
        return properties;
    }

    @Nested
    class WithTheRedisStore {

        private RedisServer redis;

        @BeforeEach
        void startRedis() {
            this.redis = cluster.open(RedisServer.start());
        }

        private List<Instance> start(int count, String namespace) {
            List<Instance> instances = cluster.start(count, instanceProperties("--inference.retry.cooldown.store=redis",
                    "--inference.retry.cooldown.namespace=" + namespace, "--spring.data.redis.host=127.0.0.1",
                    "--spring.data.redis.port=" + this.redis.port(), "--spring.data.redis.timeout=1s"));
            // The store connects in the background once an instance has started: wait until each shares.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            for (Instance instance : instances) {
                RedisCooldownStore store = (RedisCooldownStore) instance.cooldownStore().orElseThrow();
                while (!store.isRedisReachable()) {
                    assertThat(System.nanoTime() - deadline).as("%s sharing within 30 s", instance.name()).isNegative();
                    LockSupport.parkNanos(10_000_000);
                }
            }
            return instances;
        }

        @ParameterizedTest(name = "{0} instances")
        @ValueSource(ints = { 3, 10 })
        void noInstanceAsksOnceTheFirst429IsPublishedUntilTheWindowEnds(int count) throws Exception {
            Traffic traffic = drive(start(count, "window-" + count));

            // At most the one request an instance sent before the first 429 reached it, and none after:
            // counted per instance over the whole window, since a request sent just before the
            // cool-down arrived may reach the provider after it, on a busy machine.
            traffic.heardByAll();
            assertThat(traffic.windowRequests((arrival) -> true))
                .as("requests in the window per instance, at most one before the first 429 reached it; %s", traffic)
                .allSatisfy((instance, requests) -> assertThat(requests).isLessThanOrEqualTo(1));
        }

        @ParameterizedTest(name = "{0} instances")
        @ValueSource(ints = { 3, 10 })
        void aCooldownReachesEveryOtherInstanceWithin50MillisecondsAtTheP99(int count) {
            List<Instance> instances = start(count, "propagation-" + count);

            List<Duration> latencies = new ArrayList<>();
            for (int trial = 0; trial < PROPAGATION_TRIALS; trial++) {
                String key = "account-" + trial;
                Instance origin = instances.get(trial % count);
                List<CooldownStore> others = instances.stream()
                    .filter((instance) -> instance != origin)
                    .map((instance) -> instance.cooldownStore().orElseThrow())
                    .toList();
                long coolDown = System.nanoTime();
                origin.cooldownStore().orElseThrow().coolDown(key, Duration.ofSeconds(10));
                latencies.addAll(awaitEach(others, key, coolDown, Duration.ofSeconds(5)));
            }

            Collections.sort(latencies);
            assertThat(percentile(latencies, 0.99))
                .as("p99 of %d propagations: p50 %s, p90 %s, max %s", latencies.size(), percentile(latencies, 0.5),
                        percentile(latencies, 0.9), latencies.get(latencies.size() - 1))
                .isLessThan(PROPAGATION_BOUND);
        }
    }

    @Nested
    class WithoutAStore {

        @ParameterizedTest(name = "{0} instances")
        @ValueSource(ints = { 3, 10 })
        void everyInstanceAsksOnItsOwnThroughoutTheWindow(int count) throws Exception {
            Traffic traffic = drive(cluster.start(count, instanceProperties()));

            // More than the Redis store lets any instance send: at most one request.
            assertThat(traffic.windowRequests((arrival) -> true))
                .as("requests in the window; %s", traffic)
                .allSatisfy((instance, requests) -> assertThat(requests).isGreaterThan(1));
        }
    }

    @Nested
    class WithTheLocalStore {

        @ParameterizedTest(name = "{0} instances")
        @ValueSource(ints = { 3, 10 })
        void everyInstanceAsksUntilItHearsA429Itself(int count) throws Exception {
            Traffic traffic = drive(cluster.start(count, instanceProperties("--inference.retry.cooldown.store=local")));

            assertThat(traffic.windowRequests((arrival) -> arrival.nanos() <= traffic.heard(arrival.instance())))
                .as("requests in the window up to the instance's own first 429; %s", traffic)
                .allSatisfy((instance, requests) -> assertThat(requests).isPositive());
            assertThat(traffic.windowRequests((arrival) -> arrival.nanos() > traffic.heard(arrival.instance())))
                .as("requests in the window after the instance's own first 429; %s", traffic)
                .allSatisfy((instance, requests) -> assertThat(requests).isZero());
        }
    }

    /**
     * Warms every instance up with one call, arms the provider, then starts {@value #CALLS_PER_INSTANCE}
     * calls per instance, one every {@link #CALL_PERIOD} per instance with the instances in turn, waits
     * for all of them to end, and returns what the provider received. Meanwhile it watches the
     * instances' cool-down stores, if they have any, for the first moment each has one in force.
     */
    private Traffic drive(List<Instance> instances) throws Exception {
        for (Instance instance : instances) {
            instance.chat(CALL_TIMEOUT);
        }
        int warmUp = this.provider.arrivals().size();
        ScheduledExecutorService pacer = this.cluster.open(new ClosingExecutor<>(
                Executors.newSingleThreadScheduledExecutor())).executor();
        ExecutorService callers = this.cluster.open(new ClosingExecutor<>(Executors.newCachedThreadPool())).executor();
        ExecutorService watcher = this.cluster.open(new ClosingExecutor<>(Executors.newSingleThreadExecutor()))
            .executor();

        this.provider.arm();
        CompletableFuture<long[]> heard = CompletableFuture.supplyAsync(() -> watch(instances), watcher);
        List<CompletableFuture<?>> calls = new ArrayList<>();
        long slot = CALL_PERIOD.toNanos() / instances.size();
        for (int call = 0; call < CALLS_PER_INSTANCE; call++) {
            for (int i = 0; i < instances.size(); i++) {
                Instance instance = instances.get(i);
                CompletableFuture<Object> done = new CompletableFuture<>();
                pacer.schedule(() -> callers.execute(() -> {
                    try {
                        done.complete(instance.chat(CALL_TIMEOUT));
                    }
                    catch (RuntimeException ex) {
                        done.completeExceptionally(ex);
                    }
                }), call * CALL_PERIOD.toNanos() + i * slot, TimeUnit.NANOSECONDS);
                calls.add(done);
            }
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        List<Arrival> arrivals = this.provider.arrivals();
        return new Traffic(instances, arrivals.subList(warmUp, arrivals.size()),
                this.provider.windowStart().orElseThrow(), heard.get(30, TimeUnit.SECONDS));
    }

    /**
     * Polls each instance's cool-down store until it has a cool-down in force, or until the window
     * has long ended, and returns when each did ({@link Long#MAX_VALUE} for never, or no store).
     */
    private long[] watch(List<Instance> instances) {
        long[] heard = new long[instances.size()];
        Arrays.fill(heard, Long.MAX_VALUE);
        List<CooldownStore> stores = instances.stream().map((instance) -> instance.cooldownStore().orElse(null))
            .toList();
        if (stores.stream().allMatch((store) -> store == null)) {
            return heard;
        }
        String key = instances.get(0).cooldownKey();
        long deadline = System.nanoTime() + WINDOW.toNanos() + Duration.ofSeconds(5).toNanos();
        int left = instances.size();
        while (left > 0 && System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
            for (int i = 0; i < stores.size(); i++) {
                CooldownStore store = stores.get(i);
                if (heard[i] == Long.MAX_VALUE && store != null && !store.remaining(key).isZero()) {
                    heard[i] = System.nanoTime();
                    left--;
                }
            }
            LockSupport.parkNanos(50_000);
        }
        return heard;
    }

    /** Polls the stores until each has the key cooling down, and returns how long each took from {@code since}. */
    private static List<Duration> awaitEach(List<CooldownStore> stores, String key, long since, Duration deadline) {
        Duration[] latencies = new Duration[stores.size()];
        int left = stores.size();
        while (left > 0) {
            for (int i = 0; i < stores.size(); i++) {
                if (latencies[i] == null && !stores.get(i).remaining(key).isZero()) {
                    latencies[i] = Duration.ofNanos(System.nanoTime() - since);
                    left--;
                }
            }
            if (System.nanoTime() - since > deadline.toNanos()) {
                throw new AssertionError("A cool-down of " + key + " did not reach " + left + " instance(s) within "
                        + deadline);
            }
            LockSupport.parkNanos(50_000);
        }
        return List.of(latencies);
    }

    private static Duration percentile(List<Duration> sorted, double quantile) {
        int rank = (int) Math.ceil(quantile * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    /**
     * What the provider received from the instances once it was armed, and when each instance first
     * had a cool-down in force.
     */
    private record Traffic(List<Instance> instances, List<Arrival> arrivals, long windowStart, long[] heardAt) {

        /** Returns when every instance had the first cool-down in force. */
        long heardByAll() {
            long all = Arrays.stream(this.heardAt).max().orElseThrow();
            assertThat(all).as("every instance hears the first 429's cool-down; %s", this).isNotEqualTo(Long.MAX_VALUE);
            return all;
        }

        /** Returns when an instance first had a cool-down in force. */
        long heard(String instance) {
            for (int i = 0; i < this.instances.size(); i++) {
                if (this.instances.get(i).name().equals(instance)) {
                    return this.heardAt[i];
                }
            }
            throw new IllegalArgumentException("No instance " + instance);
        }

        /** Counts, per instance, the requests that arrived during the window and pass the filter. */
        Map<String, Long> windowRequests(Predicate<Arrival> filter) {
            Map<String, Long> counts = new LinkedHashMap<>();
            this.instances.forEach((instance) -> counts.put(instance.name(), 0L));
            this.arrivals.stream()
                .filter((arrival) -> arrival.nanos() - this.windowStart < WINDOW.toNanos())
                .filter(filter)
                .forEach((arrival) -> counts.merge(arrival.instance(), 1L, Long::sum));
            return counts;
        }

        @Override
        public String toString() {
            String perInstance = this.instances.stream().map((instance) -> {
                long inWindow = this.arrivals.stream()
                    .filter((arrival) -> arrival.instance().equals(instance.name())
                            && arrival.nanos() - this.windowStart < WINDOW.toNanos())
                    .count();
                long heard = heard(instance.name());
                String when = (heard == Long.MAX_VALUE) ? "never"
                        : String.format("%.1f ms", (heard - this.windowStart) / 1e6);
                return instance.name() + ": " + inWindow + " (cool-down heard at " + when + ")";
            }).collect(Collectors.joining(", "));
            return "requests in the window per instance, and when each first had a cool-down in force, from the "
                    + "window's start: " + perInstance + "; all requests after warm-up: " + this.arrivals.size();
        }
    }

    /** Shuts an executor down now when closed, and waits for its tasks to end. */
    private record ClosingExecutor<E extends ExecutorService>(E executor) implements AutoCloseable {

        @Override
        public void close() {
            this.executor.shutdownNow();
            try {
                this.executor.awaitTermination(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
