package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.retry.RetryClient;
import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryMetricsAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration;
import dev.inference.retry.autoconfigure.MeterRetryListener;
import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code inference.retry.cooldown.store=redis} on the application's own Redis, as Spring Boot's
 * {@code spring.data.redis.*} configures it, against a real {@code redis-server}.
 */
class RedisCooldownStoreAutoConfigurationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, InferenceRetryAutoConfiguration.class,
                InferenceRetryProtectionAutoConfiguration.class, RedisCooldownStoreAutoConfiguration.class))
        .withUserConfiguration(OneClient.class)
        .withPropertyValues("inference.retry.stable-retries=0", "inference.retry.stable-delay=10ms",
                "inference.retry.max-attempts=2", "inference.retry.max-delay=10ms",
                "inference.retry.cooldown.store=redis");

    private ApplicationContextRunner onTheTestServer() {
        return this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=1s");
    }

    @Test
    void sharesCooldownsThroughTheApplicationsRedis() {
        onTheTestServer().withPropertyValues("spring.application.name=shop").run((context) -> {
            RedisCooldownStore store = context.getBean(RedisCooldownStore.class);
            assertThat(store.namespace()).isEqualTo("shop");
            assertThat(context.getBean("openai", RetryClient.class).retrier().cooldownStore()).containsSame(store);
        });
    }

    @Test
    void makesTheStoreWithoutConnectingAndSharesOnceTheContextHasRefreshed() {
        onTheTestServer().withPropertyValues("spring.application.name=made-" + System.nanoTime())
            .withUserConfiguration(SeenWhenMade.class)
            .run((context) -> {
                RedisCooldownStore store = context.getBean(RedisCooldownStore.class);
                Seen seen = context.getBean(Seen.class);
                assertThat(seen.reachable()).isFalse();
                assertThat(seen.threads()).isZero();

                Poll.until("sharing", Duration.ofSeconds(30), store::isRedisReachable);
            });
    }

    @Test
    void refusesJedisWhoseSubscriptionWouldHoldItsThreadNamingWhatToChange() {
        onTheTestServer().withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOfSatisfying(RetryStoreUnavailableException.class, (refused) -> {
                    assertThat(refused.field()).isEqualTo("inference.retry.cooldown.store");
                    assertThat(refused.rule()).contains("needs Spring Data Redis on Lettuce")
                        .contains("org.springframework.data.redis.connection.jedis.JedisConnectionFactory");
                    assertThat(refused.action()).contains("spring.data.redis.client-type")
                        .contains("inference.retry.cooldown.store=local");
                });
        });
    }

    @Test
    void keysUnderTheNamespaceItIsGiven() {
        onTheTestServer().withPropertyValues("inference.retry.cooldown.namespace=checkout")
            .run((context) -> assertThat(context.getBean(RedisCooldownStore.class).namespace()).isEqualTo("checkout"));
    }

    @Test
    void keysUnderDefaultWithoutAnApplicationName() {
        onTheTestServer()
            .run((context) -> assertThat(context.getBean(RedisCooldownStore.class).namespace()).isEqualTo("default"));
    }

    @Test
    void countsItsFailedExchangesFromZero() {
        onTheTestServer()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, InferenceRetryMetricsAutoConfiguration.class))
            .run((context) -> assertThat(context.getBean(MeterRegistry.class)
                .get(MeterRetryListener.COOLDOWN_ERRORS)
                .functionCounter()
                .count()).isZero());
    }

    @Test
    void stopsSharingBeforeTheConnectionFactoryStopsWhenTheContextCloses() {
        try (LogCapture store = new LogCapture(); LogCapture lettuce = new LogCapture("io.lettuce")) {
            onTheTestServer().run((context) -> {
                RedisCooldownStore cooldowns = context.getBean(RedisCooldownStore.class);
                cooldowns.coolDown("openai", Duration.ofSeconds(1));

                context.close();

                assertThat(redis.server().pttl("default:inference-retry:cooldown:openai")).isPositive();
                assertThat(cooldowns.errorCount()).isZero();
                assertThat(store.messages(Level.WARN)).isEmpty();
                assertThat(lettuce.messages(Level.WARN)).isEmpty();
            });
        }
    }

    /** What a bean made with the store saw of it: whether it shared, and how many threads it had. */
    record Seen(boolean reachable, long threads) {
    }

    @Configuration(proxyBeanMethods = false)
    static class SeenWhenMade {

        @Bean
        Seen seenWhenMade(RedisCooldownStore store) {
            String name = RedisSession.threadName(store.namespace());
            long threads = Thread.getAllStackTraces().keySet().stream()
                .filter((thread) -> thread.isAlive() && thread.getName().startsWith(name))
                .count();
            return new Seen(store.isRedisReachable(), threads);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneClient {

        @Bean
        InferenceClient openai() {
            return new InferenceClient() {

                @Override
                public InferenceResponse invoke(InferenceRequest request, CallContext context) {
                    return InferenceResponse.of("ok");
                }

                @Override
                public StreamReader stream(InferenceRequest request, CallContext context) {
                    throw new UnsupportedOperationException("unary calls only");
                }
            };
        }
    }
}
