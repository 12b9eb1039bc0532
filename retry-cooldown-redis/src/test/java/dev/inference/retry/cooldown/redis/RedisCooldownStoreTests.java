package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import ch.qos.logback.classic.Level;
import dev.inference.retry.cooldown.CooldownReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link RedisCooldownStore} against a real {@code redis-server}: instances are stores on connection
 * factories of their own. Local copies run on virtual clocks (fixed unless a test moves them) where
 * the time is not what is tested; only the propagation latency and how soon an outage is noticed and
 * ends are measured in real time.
 */
class RedisCooldownStoreTests {

    /** The switch that leaves out the outages longer than a minute. */
    static final String LONG_OUTAGES = "inference.retry.redis.long-outages";

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final String namespace = "app-" + UUID.randomUUID();

    private final Instances instances = new Instances();

    @AfterEach
    void closeInstances() {
        this.instances.close();
    }

    private RedisCooldownStore instance() {
        return this.instances.start(port(), this.namespace);
    }

    private RedisCooldownStore instance(LongSupplier nanoTime) {
        return this.instances.start(port(), this.namespace, nanoTime);
    }

    private RedisCooldownStore instance(UnaryOperator<RedisCooldownStore.Builder> customizer) {
        return this.instances.start(port(), this.namespace, customizer);
    }

    private static int port() {
        return redis.server().port();
    }

    private String redisKey(String key) {
        return this.namespace + ":inference-retry:cooldown:" + key;
    }

    /** A clock that stands still unless the test moves it. */
    private static AtomicLong clockAt(Duration reading) {
        return new AtomicLong(reading.toNanos());
    }

    @Nested
    class Sharing {

        @Test
        void aCooldownSetOnOneInstanceReachesTheOther() {
            AtomicLong clock = clockAt(Duration.ZERO);
            RedisCooldownStore first = instance(clock::get);
            RedisCooldownStore second = instance(clock::get);

            first.coolDown("openai", Duration.ofSeconds(20));

            Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("openai").isZero());
            assertThat(second.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
        }

        @Test
        void aCooldownReachesTheOtherInstanceWithItsReason() {
            AtomicLong clock = clockAt(Duration.ZERO);
            RedisCooldownStore first = instance(clock::get);
            RedisCooldownStore second = instance(clock::get);

            first.coolDown("openai", Duration.ofSeconds(20), CooldownReason.RATE_LIMIT);

            Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("openai").isZero());
            assertThat(second.reason("openai")).contains(CooldownReason.RATE_LIMIT);
            assertThat(first.reason("openai")).contains(CooldownReason.RATE_LIMIT);
        }

        @Test
        void anInstanceStartedLaterLearnsTheReasonsOfTheCooldownsInForce() throws Exception {
            RedisCooldownStore first = instance(clockAt(Duration.ZERO)::get);
            first.coolDown("openai", Duration.ofSeconds(30), CooldownReason.RATE_LIMIT);
            first.coolDown("anthropic", Duration.ofSeconds(30));
            first.awaitQueued(DEADLINE);

            RedisCooldownStore later = instance(clockAt(Duration.ofHours(3))::get);

            assertThat(later.reason("openai")).contains(CooldownReason.RATE_LIMIT);
            assertThat(later.reason("anthropic")).contains(CooldownReason.RETRY_AFTER);
        }

        @Test
        void keepsTheCooldownInRedisUntilItEnds() throws Exception {
            RedisCooldownStore store = instance(clockAt(Duration.ZERO)::get);

            store.coolDown("openai", Duration.ofSeconds(20));
            store.awaitQueued(DEADLINE);

            assertThat(redis.server().pttl(redisKey("openai"))).isBetween(15_000L, 20_000L);
        }

        @Test
        void neverShortensACooldownAcrossInstances() throws Exception {
            AtomicLong clock = clockAt(Duration.ZERO);
            RedisCooldownStore first = instance(clock::get);
            RedisCooldownStore second = instance(clock::get);
            first.coolDown("openai", Duration.ofSeconds(60));
            Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("openai").isZero());

            second.coolDown("openai", Duration.ofSeconds(10));
            second.awaitQueued(DEADLINE);

            assertThat(redis.server().pttl(redisKey("openai"))).isGreaterThan(50_000L);
            assertThat(first.remaining("openai")).isEqualTo(Duration.ofSeconds(60));
            assertThat(second.remaining("openai")).isEqualTo(Duration.ofSeconds(60));
        }

        @Test
        void lengthensACooldownAcrossInstances() {
            AtomicLong clock = clockAt(Duration.ZERO);
            RedisCooldownStore first = instance(clock::get);
            RedisCooldownStore second = instance(clock::get);
            first.coolDown("openai", Duration.ofSeconds(10));
            Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("openai").isZero());

            second.coolDown("openai", Duration.ofSeconds(60));

            Poll.until("lengthened on the first instance", DEADLINE,
                    () -> first.remaining("openai").equals(Duration.ofSeconds(60)));
            assertThat(redis.server().pttl(redisKey("openai"))).isGreaterThan(50_000L);
        }

        @Test
        void anInstanceStartedLaterLearnsTheCooldownsInForceFromTheirTimeToLive() throws Exception {
            RedisCooldownStore first = instance(clockAt(Duration.ZERO)::get);
            first.coolDown("openai", Duration.ofSeconds(30));
            first.coolDown("anthropic", Duration.ofSeconds(90));
            first.awaitQueued(DEADLINE);

            RedisCooldownStore later = instance(clockAt(Duration.ofHours(3))::get);

            assertThat(later.remaining("openai")).isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30));
            assertThat(later.remaining("anthropic")).isBetween(Duration.ofSeconds(85), Duration.ofSeconds(90));
        }

        @Test
        void keepsNamespacesApartEvenWhenTheirNamesHoldWildcards() throws Exception {
            String wild = namespace + "*";
            RedisCooldownStore first = instances.start(port(), wild, clockAt(Duration.ZERO)::get);
            first.coolDown("openai", Duration.ofSeconds(30));
            first.awaitQueued(DEADLINE);

            RedisCooldownStore sameNamespace = instances.start(port(), wild, clockAt(Duration.ZERO)::get);
            RedisCooldownStore otherNamespace = instances.start(port(), namespace + "-eu",
                    clockAt(Duration.ZERO)::get);

            assertThat(sameNamespace.remaining("openai")).isPositive();
            assertThat(otherNamespace.remaining("openai")).isZero();
        }

        @Test
        void answersWithoutAskingRedisWhetherACooldownIsInForceOrNot() throws Exception {
            RedisCooldownStore store = instance(
                    (builder) -> builder.nanoTime(clockAt(Duration.ZERO)::get).probeInterval(Duration.ofHours(1)));
            store.coolDown("openai", Duration.ofSeconds(30));
            Poll.until("written to Redis", DEADLINE, () -> redis.server().pttl(redisKey("openai")) > 0);
            // Whatever the store had queued has run: from here on, only the calls could ask Redis.
            store.awaitQueued(DEADLINE);
            long before = commandsProcessed();

            for (int i = 0; i < 10_000; i++) {
                store.remaining("openai");
                store.remaining("anthropic");
            }

            // The INFO command that reads the count is itself counted once.
            assertThat(commandsProcessed()).isEqualTo(before + 1);
        }

        private long commandsProcessed() {
            Matcher matcher = Pattern.compile("total_commands_processed:(\\d+)")
                .matcher((String) redis.server().command("INFO", "stats"));
            assertThat(matcher.find()).isTrue();
            return Long.parseLong(matcher.group(1));
        }

        @Test
        void ignoresMessagesThatAreNotCooldownsOnItsChannel() {
            RedisCooldownStore store = instance(clockAt(Duration.ZERO)::get);
            String channel = namespace + ":inference-retry:cooldowns";

            redis.server().command("PUBLISH", channel, "hello");
            redis.server().command("PUBLISH", channel, "-5 someone openai");
            redis.server().command("PUBLISH", channel, "5000 someone anthropic");

            Poll.until("the valid message heard", DEADLINE, () -> !store.remaining("anthropic").isZero());
            assertThat(store.snapshot()).containsOnlyKeys("anthropic");
        }
    }

    @Nested
    class Propagation {

        private static final int WARM_UP = 20;

        private static final int TRIALS = 200;

        @Test
        void reachesAnotherInstanceWithin50MillisecondsAtTheNinetyNinthPercentile() throws Exception {
            RedisCooldownStore first = instance();
            RedisCooldownStore second = instance();
            List<Long> micros = new ArrayList<>();

            for (int trial = 0; trial < WARM_UP + TRIALS; trial++) {
                String key = "account-" + trial;
                long start = System.nanoTime();
                first.coolDown(key, Duration.ofMinutes(1));
                Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining(key).isZero());
                if (trial >= WARM_UP) {
                    micros.add((System.nanoTime() - start) / 1_000);
                }
            }

            Collections.sort(micros);
            long p50 = micros.get(TRIALS / 2 - 1);
            long p99 = micros.get(TRIALS * 99 / 100 - 1);
            long max = micros.get(TRIALS - 1);
            System.out.printf("Cool-down propagation over %d trials: p50 %.2f ms, p99 %.2f ms, max %.2f ms "
                    + "(load average %s)%n", TRIALS, p50 / 1000.0, p99 / 1000.0, max / 1000.0, loadAverage());
            assertThat(p99).as("p99 in µs of %s", micros).isLessThan(50_000);
        }

        private static String loadAverage() throws Exception {
            Path loadavg = Path.of("/proc/loadavg");
            return Files.isReadable(loadavg) ? Files.readString(loadavg).trim() : "unknown";
        }
    }

    @Nested
    class ClockSkew {

        @ParameterizedTest
        @ValueSource(longs = { -10, 10, 24 * 60 })
        void anInstanceWhoseClockIsOffByMinutesCountsTheRightTime(long minutesOff) {
            long offset = Duration.ofMinutes(minutesOff).toNanos();
            RedisCooldownStore first = instance();
            RedisCooldownStore skewed = instance(() -> System.nanoTime() + offset);

            first.coolDown("openai", Duration.ofSeconds(30));

            Poll.until("heard by the skewed instance", DEADLINE, () -> !skewed.remaining("openai").isZero());
            // Wide enough for a stalled machine, far narrower than the skew.
            assertThat(skewed.remaining("openai")).isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30));
        }

        @Test
        void countsAHeardCooldownDownOnItsOwnClock() {
            AtomicLong firstClock = clockAt(Duration.ZERO);
            AtomicLong skewedClock = new AtomicLong(Long.MAX_VALUE - Duration.ofSeconds(5).toNanos());
            RedisCooldownStore first = instance(firstClock::get);
            RedisCooldownStore skewed = instance(skewedClock::get);
            first.coolDown("openai", Duration.ofSeconds(30));
            Poll.until("heard by the skewed instance", DEADLINE, () -> !skewed.remaining("openai").isZero());

            skewedClock.addAndGet(Duration.ofSeconds(10).toNanos());

            assertThat(skewed.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
        }
    }

    @Nested
    class Closing {

        @Test
        void leavesNoThreadConnectionOrSubscriptionBehind() {
            LettuceConnectionFactory factory = instances.connectionFactory(port());
            try (RedisConnection connection = factory.getConnection()) {
                connection.ping();
            }
            int clientsBefore = redis.server().clients();
            RedisCooldownStore store = RedisCooldownStore.builder(factory, namespace).build();
            store.coolDown("openai", Duration.ofSeconds(30));
            Poll.until("subscribed", DEADLINE, () -> subscribers() == 1);
            assertThat(storeThreads()).isNotEmpty();

            store.close();

            Poll.until("unsubscribed", DEADLINE, () -> subscribers() == 0 && redis.server().clients() == clientsBefore);
            // close() waits for the executor to terminate; its thread ends a moment after that.
            Poll.until("the store's thread has ended", DEADLINE, () -> storeThreads().isEmpty());
        }

        @Test
        void goesOnAnsweringFromItsLocalCopyOnceClosed() {
            AtomicLong clock = clockAt(Duration.ZERO);
            RedisCooldownStore store = instance(clock::get);
            store.close();

            store.coolDown("openai", Duration.ofSeconds(30));

            assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(30));
            assertThat(redis.server().pttl(redisKey("openai"))).isEqualTo(-2);
            assertThat(store.errorCount()).isZero();
        }

        @Test
        void closesOnceHoweverOftenItIsClosed() {
            RedisCooldownStore store = instance();

            store.close();
            store.close();
            store.close();

            // close() waits for the executor to terminate; its thread ends a moment after that.
            Poll.until("the store's thread has ended", DEADLINE, () -> storeThreads().isEmpty());
        }

        private long subscribers() {
            @SuppressWarnings("unchecked")
            List<Object> reply = (List<Object>) redis.server()
                .command("PUBSUB", "NUMSUB", namespace + ":inference-retry:cooldowns");
            return (Long) reply.get(1);
        }
    }

    @Nested
    class Outage {

        private final LogCapture logs = new LogCapture();

        @AfterEach
        void stopCapturing() {
            this.logs.close();
        }

        @Test
        void goesOnLocallyWarnsOnceAndSharesAgainWhenRedisIsBack() throws Exception {
            try (RedisServer own = RedisServer.start()) {
                AtomicLong clock = clockAt(Duration.ZERO);
                RedisCooldownStore first = startProbingOften(own, clock);
                RedisCooldownStore second = startProbingOften(own, clock);
                first.coolDown("before", Duration.ofMinutes(2));
                Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("before").isZero());

                own.kill();
                Poll.until("failures counted", DEADLINE, () -> first.errorCount() >= 3 && second.errorCount() >= 3);
                long start = System.nanoTime();
                first.coolDown("during", Duration.ofMinutes(2));
                Duration during = first.remaining("during");
                Duration callsTook = Duration.ofNanos(System.nanoTime() - start);

                assertThat(during).isEqualTo(Duration.ofMinutes(2));
                assertThat(callsTook).isLessThan(Instances.COMMAND_TIMEOUT);
                assertThat(second.remaining("during")).isZero();
                assertThat(first.isRedisReachable()).isFalse();
                assertThat(this.logs.messages(Level.WARN)).hasSize(2)
                    .allSatisfy((message) -> assertThat(message).startsWith("Redis is unreachable"));

                own.restart();
                Poll.until("the cool-down set in the outage heard", DEADLINE,
                        () -> !second.remaining("during").isZero());
                Poll.until("both instances back", DEADLINE,
                        () -> first.isRedisReachable() && second.isRedisReachable());
                first.coolDown("after", Duration.ofMinutes(2));
                Poll.until("a new cool-down heard", DEADLINE, () -> !second.remaining("after").isZero());

                assertThat(own.pttl(redisKey("before"))).as("written again to the restarted server").isPositive();
                assertThat(own.pttl(redisKey("during"))).isPositive();
                assertThat(this.logs.messages(Level.WARN)).hasSize(2);
                assertThat(this.logs.messages(Level.INFO)).hasSize(2)
                    .allSatisfy((message) -> assertThat(message).startsWith("Redis is reachable again"));
            }
        }

        @Test
        void learnsWhatWasMissedWhenTheClientReconnectsByItself() {
            try (RedisServer own = RedisServer.start()) {
                AtomicLong clock = clockAt(Duration.ZERO);
                // No probe in this test's time: only the client's own reconnection can bring sharing back.
                RedisCooldownStore first = start(own, clock, Duration.ofHours(1));
                RedisCooldownStore second = start(own, clock, Duration.ofHours(1));
                first.coolDown("before", Duration.ofMinutes(2));
                Poll.until("heard by the second instance", DEADLINE, () -> !second.remaining("before").isZero());

                own.kill();
                own.restart();

                Poll.until("written again to the restarted server", DEADLINE, () -> own.pttl(redisKey("before")) > 0);
                first.coolDown("after", Duration.ofMinutes(2));
                Poll.until("a new cool-down heard", DEADLINE, () -> !second.remaining("after").isZero());
            }
        }

        @Test
        void startsWithoutRedisAndSharesOnceItAnswers() throws Exception {
            try (RedisServer own = RedisServer.start()) {
                own.kill();
                AtomicLong clock = clockAt(Duration.ZERO);

                RedisCooldownStore store = startProbingOften(own, clock);
                store.coolDown("openai", Duration.ofSeconds(30));

                assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(30));
                assertThat(store.errorCount()).isPositive();
                assertThat(this.logs.messages(Level.WARN)).hasSize(1);

                own.restart();
                Poll.until("written once Redis answers", DEADLINE, () -> own.pttl(redisKey("openai")) > 0);
                RedisCooldownStore later = startProbingOften(own, clock);
                assertThat(later.remaining("openai")).isPositive();
            }
        }

        private RedisCooldownStore startProbingOften(RedisServer server, AtomicLong clock) {
            return start(server, clock, Duration.ofMillis(100));
        }

        private RedisCooldownStore start(RedisServer server, AtomicLong clock, Duration probeInterval) {
            return instances.start(server.port(), namespace,
                    (builder) -> builder.nanoTime(clock::get).probeInterval(probeInterval));
        }
    }

    /**
     * A Redis killed (SIGKILL) in the middle of a run and started again on the same port, with the
     * application's command timeout unset (Lettuce's minute) or a second: the store's own deadline, not
     * that timeout, decides how soon the outage is noticed, and sharing resumes as soon as Redis
     * answers. Instances probe at the default interval, so these are the figures an application gets.
     */
    @Nested
    class OutageWhateverTheCommandTimeout {

        /** The store's deadline with the default probe interval of a second: twice the interval. */
        private static final Duration STORE_DEADLINE = Duration.ofSeconds(2);

        private static final Duration NOTICED_WITHIN = Duration.ofSeconds(5);

        private static final Duration SHARED_WITHIN = Duration.ofSeconds(3);

        private static final Duration BEFORE = Duration.ofMinutes(5);

        private final LogCapture logs = new LogCapture();

        @AfterEach
        void stopCapturing() {
            this.logs.close();
        }

        static Stream<Arguments> applicationTimeouts() {
            return Stream.of(arguments(named("spring.data.redis.timeout unset (Lettuce's 60 s)", null)),
                    arguments(named("spring.data.redis.timeout=1s", Duration.ofSeconds(1))));
        }

        /**
         * Each timeout with an outage of 10 s and, unless {@value #LONG_OUTAGES} is {@code false}, one of
         * 90 s: CI runs the long ones in its first test run only, where they take three minutes.
         */
        static Stream<Arguments> applicationTimeoutsAndOutages() {
            Stream<Duration> outages = Boolean.parseBoolean(System.getProperty(LONG_OUTAGES, "true"))
                    ? Stream.of(Duration.ofSeconds(10), Duration.ofSeconds(90)) : Stream.of(Duration.ofSeconds(10));
            List<Duration> each = outages.toList();
            return applicationTimeouts().flatMap((timeout) -> each.stream()
                .map((outage) -> arguments(timeout.get()[0], outage)));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("applicationTimeouts")
        void noticesTheOutageWithinFiveSecondsWarningOnceAndCountingItsErrors(@Nullable Duration applicationTimeout) {
            withTwoInstancesSharing(applicationTimeout, (own, first, second) -> {
                long killed = System.nanoTime();
                own.kill();
                Poll.until("noticed by an instance", NOTICED_WITHIN,
                        () -> first.errorCount() > 0 || second.errorCount() > 0);
                Duration firstNoticed = since(killed);
                Poll.until("noticed by both instances", NOTICED_WITHIN,
                        () -> first.errorCount() > 0 && second.errorCount() > 0);
                Duration bothNoticed = since(killed);
                Poll.until("further failures counted", DEADLINE,
                        () -> first.errorCount() >= 2 && second.errorCount() >= 2);

                System.out.printf("Outage noticed %d ms after SIGKILL by the first instance, %d ms by both (%s)%n",
                        firstNoticed.toMillis(), bothNoticed.toMillis(), timeoutName(applicationTimeout));
                // No exchange can fail before it has waited for the shorter of the store's deadline and
                // the application's timeout; the upper bound is the one the store promises.
                assertThat(firstNoticed).isGreaterThanOrEqualTo(shorter(STORE_DEADLINE, applicationTimeout));
                assertThat(bothNoticed).isLessThan(NOTICED_WITHIN);
                assertThat(first.isRedisReachable()).isFalse();
                assertThat(second.isRedisReachable()).isFalse();
                assertThat(this.logs.messages(Level.WARN)).as("one warning per instance").hasSize(2)
                    .allSatisfy((message) -> assertThat(message).startsWith("Redis is unreachable"));
            });
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("applicationTimeouts")
        void goesOnWithoutRedisAndPublishesWhatWasSetMeanwhileOnceItAnswers(@Nullable Duration applicationTimeout) {
            withTwoInstancesSharing(applicationTimeout, (own, first, second) -> {
                own.kill();
                Poll.until("the outage noticed", NOTICED_WITHIN,
                        () -> first.errorCount() > 0 && second.errorCount() > 0);

                long calls = System.nanoTime();
                first.coolDown("during", Duration.ofMinutes(2));
                Duration during = first.remaining("during");
                Duration callsTook = since(calls);
                own.restart();
                Poll.until("the cool-down set in the outage heard", SHARED_WITHIN,
                        () -> !second.remaining("during").isZero());

                assertThat(callsTook).as("calls never wait for Redis").isLessThan(Duration.ofMillis(500));
                assertThat(during).isEqualTo(Duration.ofMinutes(2));
                assertThat(own.pttl(redisKey("during"))).isPositive();
                assertThat(own.pttl(redisKey("before"))).as("written again to the restarted server").isPositive();
            });
        }

        @ParameterizedTest(name = "{0}, outage of {1}")
        @MethodSource("applicationTimeoutsAndOutages")
        void sharesAgainWithinThreeSecondsOfRedisAnsweringHoweverLongTheOutage(@Nullable Duration applicationTimeout,
                Duration outage) {
            withTwoInstancesSharing(applicationTimeout, (own, first, second) -> {
                own.kill();
                Poll.throughout("going on with the cool-downs they had", outage,
                        () -> first.remaining("before").equals(BEFORE) && second.remaining("before").equals(BEFORE));
                own.restart();
                long answering = System.nanoTime();
                first.coolDown("after", Duration.ofMinutes(2));
                Poll.until("a cool-down set once Redis answers heard by the other instance", SHARED_WITHIN,
                        () -> !second.remaining("after").isZero());
                Duration shared = since(answering);

                System.out.printf("Sharing again %d ms after Redis answered, after an outage of %d s (%s)%n",
                        shared.toMillis(), outage.toSeconds(), timeoutName(applicationTimeout));
                assertThat(shared).isLessThan(SHARED_WITHIN);
            });
        }

        /**
         * Runs a scenario on a Redis of its own with two instances of an application whose command
         * timeout is the one given, probing at the default interval on clocks that stand still, that
         * already share a cool-down "before" of {@link #BEFORE}.
         */
        private void withTwoInstancesSharing(@Nullable Duration applicationTimeout, Scenario scenario) {
            try (RedisServer own = RedisServer.start(); Instances app = new Instances(applicationTimeout)) {
                RedisCooldownStore first = app.start(own.port(), namespace, clockAt(Duration.ZERO)::get);
                RedisCooldownStore second = app.start(own.port(), namespace, clockAt(Duration.ZERO)::get);
                first.coolDown("before", BEFORE);
                Poll.until("heard by the second instance", DEADLINE, () -> second.remaining("before").equals(BEFORE));
                scenario.run(own, first, second);
            }
        }

        private static Duration shorter(Duration deadline, @Nullable Duration applicationTimeout) {
            return (applicationTimeout != null && applicationTimeout.compareTo(deadline) < 0) ? applicationTimeout
                    : deadline;
        }

        private static String timeoutName(@Nullable Duration applicationTimeout) {
            return (applicationTimeout != null) ? "spring.data.redis.timeout=" + applicationTimeout.toSeconds() + "s"
                    : "spring.data.redis.timeout unset";
        }
    }

    @FunctionalInterface
    private interface Scenario {

        void run(RedisServer redis, RedisCooldownStore first, RedisCooldownStore second);
    }

    /**
     * A Redis that is frozen (SIGSTOP) keeps its connections open and lets the kernel accept new ones,
     * but answers nothing: only the store's own deadline ends an exchange, whatever the application's
     * timeout (here Lettuce's minute). The deadline is driven short so that several probes fit in a
     * second, except where the defaults are what is tested.
     */
    @Nested
    class FrozenRedis {

        private static final Duration STORE_DEADLINE = Duration.ofMillis(300);

        private final LogCapture logs = new LogCapture();

        @AfterEach
        void stopCapturing() {
            this.logs.close();
        }

        @Test
        void takesAConnectionThatIsSlowToBeMadeForNoOutage() {
            try (RedisServer own = RedisServer.start(); Instances app = new Instances(null)) {
                own.pause();
                // Probing every second: each command's deadline is two seconds, connecting may take ten.
                RedisCooldownStore store = app.start(own.port(), namespace,
                        (builder) -> builder.nanoTime(clockAt(Duration.ZERO)::get).startupWait(Duration.ZERO));

                Poll.throughout("without an outage while connecting", Duration.ofSeconds(3),
                        () -> store.errorCount() == 0);
                own.resume();
                Poll.until("sharing", DEADLINE, store::isRedisReachable);

                assertThat(store.errorCount()).isZero();
                assertThat(this.logs.messages(Level.WARN)).isEmpty();
            }
        }

        @Test
        void givesUpEachExchangeAtTheDeadlineAndHoldsOneConnectionAttemptAtATime() {
            try (RedisServer own = RedisServer.start(); Instances app = new Instances(null)) {
                RedisCooldownStore store = startWithShortDeadline(app, own);
                Poll.until("both connections open", DEADLINE, () -> own.clients() == 2);

                long frozen = System.nanoTime();
                own.pause();
                Poll.until("noticed", DEADLINE, () -> store.errorCount() > 0);
                Duration noticed = since(frozen);
                // A probe that waited its deadline for the connection still being attempted, and another.
                Poll.until("further probes given up", DEADLINE, () -> store.errorCount() >= 3);
                own.resume();
                Poll.until("sharing again", DEADLINE, store::isRedisReachable);

                // A connection attempted on each probe and left behind would stay open: Redis answers them now.
                Poll.until("the store's two connections alone left", DEADLINE, () -> own.clients() == 2);
                assertThat(noticed).isGreaterThanOrEqualTo(STORE_DEADLINE).isLessThan(Duration.ofSeconds(5));
            }
        }

        @Test
        void closesAConnectionThatRedisAcceptsOnlyAfterTheStoreHasClosed() {
            try (RedisServer own = RedisServer.start(); Instances app = new Instances(null)) {
                RedisCooldownStore store = startWithShortDeadline(app, own);
                own.pause();
                Poll.until("a connection attempt given up", DEADLINE, () -> store.errorCount() >= 2);

                store.close();
                own.resume();

                Poll.until("no connection left", DEADLINE, () -> own.clients() == 0);
                Poll.until("no thread left", DEADLINE, () -> storeThreads().isEmpty());
            }
        }

        private RedisCooldownStore startWithShortDeadline(Instances app, RedisServer server) {
            return app.start(server.port(), namespace, (builder) -> builder.nanoTime(clockAt(Duration.ZERO)::get)
                .probeInterval(Duration.ofMillis(100))
                .deadline(STORE_DEADLINE));
        }
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private List<Thread> storeThreads() {
        String name = "inference-retry-cooldown-" + this.namespace;
        return Thread.getAllStackTraces()
            .keySet()
            .stream()
            .filter((thread) -> thread.isAlive() && thread.getName().startsWith(name))
            .toList();
    }

    @Test
    void showsItsNamespaceAndLocalCopy() {
        RedisCooldownStore store = instance(clockAt(Duration.ZERO)::get);

        store.coolDown("openai", Duration.ofSeconds(30));

        assertThat(store.namespace()).isEqualTo(this.namespace);
        assertThat(store.snapshot()).isEqualTo(Map.of("openai", Duration.ofSeconds(30)));
        assertThat(store).hasToString("RedisCooldownStore[namespace=" + this.namespace
                + ", reachable=true, local={openai=PT30S}]");
    }
}
