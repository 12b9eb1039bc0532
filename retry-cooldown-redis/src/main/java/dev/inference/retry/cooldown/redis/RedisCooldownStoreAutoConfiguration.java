package dev.inference.retry.cooldown.redis;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.MeterRetryListener;
import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.StringUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * Redis cool-down store, {@code inference.retry.cooldown.store=redis}: a {@link RedisCooldownStore}
 * on the application's {@link RedisConnectionFactory}, Lettuce's, keyed under
 * {@code inference.retry.cooldown.namespace} (by default {@code spring.application.name}, else
 * {@code default}), and the meter {@code inference.retry.cooldown.errors} when Micrometer is there.
 * The base auto-configuration gives the store to the retrying clients, and fails startup when
 * Spring Data Redis is missing.
 *
 * <p>Making the store never waits for Redis: it starts connecting once the context has refreshed,
 * and closes when the context begins to close ({@link RedisCooldownStoreLifecycle}). A factory that
 * is missing or not Lettuce's fails startup with a report that says what to change.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
@ConditionalOnProperty(name = RedisCooldownStoreAutoConfiguration.STORE, havingValue = "redis")
@ConditionalOnBean(InferenceRetryProperties.class)
public final class RedisCooldownStoreAutoConfiguration {

    static final String STORE = "inference.retry.cooldown.store";

    private static final String LETTUCE_CONNECTION_FACTORY =
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    /** Creates the auto-configuration; Spring Boot does. */
    public RedisCooldownStoreAutoConfiguration() {
    }

    // Closed once, by the lifecycle below, when the context begins to close: never as the bean is destroyed.
    @Bean(destroyMethod = "")
    RedisCooldownStore inferenceRetryCooldownStore(ObjectProvider<RedisConnectionFactory> connectionFactory,
            InferenceRetryProperties properties, Environment environment) {
        RedisConnectionFactory factory = connectionFactory.getIfAvailable();
        if (factory == null) {
            throw new RetryStoreUnavailableException("redis", "needs a RedisConnectionFactory bean, and there is none",
                    "Add org.springframework.boot:spring-boot-starter-data-redis and point spring.data.redis.* at "
                            + "your Redis, or set " + STORE + "=local to share cool-downs within this instance only.");
        }
        if (!isLettuce(factory.getClass())) {
            throw new RetryStoreUnavailableException("redis", "needs Spring Data Redis on Lettuce, Spring Boot's default "
                    + "client, but the RedisConnectionFactory is a " + factory.getClass().getName() + ": the store "
                    + "listens for other instances' cool-downs on a subscription that only Lettuce makes without "
                    + "blocking (on Jedis it would hold the store's one thread forever, and nothing would be shared)",
                    "Use Lettuce: leave spring.data.redis.client-type unset (or set it to lettuce) with "
                            + "io.lettuce:lettuce-core on the class path, or set " + STORE
                            + "=local to share cool-downs within this instance only.");
        }
        return RedisCooldownStore.builder(factory, namespace(properties, environment)).unstarted();
    }

    @Bean
    static RedisCooldownStoreLifecycle inferenceRetryCooldownStoreLifecycle(ObjectProvider<RedisCooldownStore> store) {
        return new RedisCooldownStoreLifecycle(store);
    }

    /** Whether the factory is Lettuce's, by name: Lettuce's classes may be absent when it is not. */
    private static boolean isLettuce(Class<?> factoryClass) {
        for (Class<?> type = factoryClass; type != null; type = type.getSuperclass()) {
            if (type.getName().equals(LETTUCE_CONNECTION_FACTORY)) {
                return true;
            }
        }
        return false;
    }

    private static String namespace(InferenceRetryProperties properties, Environment environment) {
        String namespace = properties.getCooldown().getNamespace();
        if (StringUtils.hasText(namespace)) {
            return namespace;
        }
        String application = environment.getProperty("spring.application.name");
        return StringUtils.hasText(application) ? application : "default";
    }

    /** Counts the failed exchanges of the store with Redis, from zero. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class MetricsConfiguration {

        @Bean
        MeterBinder inferenceRetryCooldownErrors(RedisCooldownStore store) {
            return (registry) -> FunctionCounter.builder(MeterRetryListener.COOLDOWN_ERRORS, store,
                    RedisCooldownStore::errorCount)
                .description("Failed exchanges of the retry cool-down store with Redis; calls went on with the "
                        + "local copy")
                .register(registry);
        }
    }
}
