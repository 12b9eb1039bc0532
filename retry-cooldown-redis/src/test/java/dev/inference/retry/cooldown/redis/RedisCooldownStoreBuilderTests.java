package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What {@link RedisCooldownStore} does without any Redis: it refuses bad settings, and it starts and
 * works alone when nothing answers. These tests need no {@code redis-server}.
 */
class RedisCooldownStoreBuilderTests {

    private final LettuceConnectionFactory factory = new LettuceConnectionFactory(
            new RedisStandaloneConfiguration("127.0.0.1", 6379));

    @Nested
    class Validation {

        @Test
        void refusesABlankNamespace() {
            assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> RedisCooldownStore.builder(RedisCooldownStoreBuilderTests.this.factory, " "))
                .withMessage("namespace must not be blank, was ' ': name the application's instances");
        }

        @Test
        void refusesANullNamespace() {
            assertThatNullPointerException()
                .isThrownBy(() -> RedisCooldownStore.builder(RedisCooldownStoreBuilderTests.this.factory, null))
                .withMessage("namespace must not be null");
        }

        @Test
        void refusesAProbeIntervalThatIsNotPositive() {
            assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> RedisCooldownStore.builder(RedisCooldownStoreBuilderTests.this.factory, "shop")
                    .probeInterval(Duration.ZERO))
                .withMessage("probeInterval must be positive, was PT0S");
        }

        @Test
        void refusesAConnectionFactoryThatIsNotLettuces() {
            JedisConnectionFactory jedis = new JedisConnectionFactory();

            assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> RedisCooldownStore.builder(jedis, "shop"))
                .withMessage("connectionFactory must be Lettuce's, was a " + JedisConnectionFactory.class.getName()
                        + ": the store subscribes without blocking a thread and bounds every exchange with Redis, "
                        + "which only Lettuce's connections allow");
        }

        @Test
        void refusesANegativeStartupWait() {
            assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> RedisCooldownStore.builder(RedisCooldownStoreBuilderTests.this.factory, "shop")
                    .startupWait(Duration.ofSeconds(-1)))
                .withMessage("startupWait must not be negative, was PT-1S");
        }
    }

    @ParameterizedTest(name = "probing every {0}: {1}")
    @CsvSource({ "PT0.05S, PT1S", "PT0.5S, PT1S", "PT1S, PT2S", "PT2.2S, PT4.4S", "PT1H, PT5S",
            "PT2562047788015215H30M7S, PT5S" })
    void givesEachExchangeTwiceTheProbeIntervalBetweenOneAndFiveSeconds(Duration probeInterval, Duration deadline) {
        assertThat(RedisCooldownStore.deadlineFor(probeInterval)).isEqualTo(deadline);
    }

    @Nested
    class WithNothingListening {

        @Test
        void startsAtOnceWarnsOnceAndCoolsDownLocally() throws Exception {
            AtomicLong clock = new AtomicLong();
            try (LogCapture logs = new LogCapture(); Instances instances = new Instances()) {
                long start = System.nanoTime();
                RedisCooldownStore store = instances.start(closedPort(), "shop",
                        (builder) -> builder.nanoTime(clock::get).probeInterval(Duration.ofMillis(50)));
                Duration startup = Duration.ofNanos(System.nanoTime() - start);

                store.coolDown("openai", Duration.ofSeconds(20));
                Poll.until("failures counted", Duration.ofSeconds(30), () -> store.errorCount() >= 3);

                assertThat(startup).isLessThan(Duration.ofSeconds(10));
                assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
                assertThat(store.isRedisReachable()).isFalse();
                assertThat(logs.messages(Level.WARN)).singleElement()
                    .asString()
                    .startsWith("Redis is unreachable (")
                    .contains("calls go on with this instance's own cool-downs of namespace 'shop'");
            }
        }

        private static int closedPort() throws IOException {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            }
        }
    }
}
