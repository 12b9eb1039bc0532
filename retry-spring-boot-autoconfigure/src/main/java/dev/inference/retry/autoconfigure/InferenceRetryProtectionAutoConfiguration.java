package dev.inference.retry.autoconfigure;

import dev.inference.retry.CooldownStore;
import dev.inference.retry.LocalCooldownStore;
import dev.inference.retry.autoconfigure.cooldown.RedisCooldownStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.StringUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of what
 * protects a provider from the retries of many callers, both off unless configured:
 * <ul>
 * <li>a retry budget per wrapped bean ({@code inference.retry.budget.*} and
 * {@code inference.retry.clients.<bean>.budget.*}), validated at startup with the policies;</li>
 * <li>a cool-down store ({@code inference.retry.cooldown.store}): {@code local} shares the
 * cool-downs that providers ask for between the wrapped beans of this application context;
 * {@code redis} shares them with every instance through the application's Redis, keys under
 * {@code inference.retry.cooldown.namespace} (by default {@code spring.application.name}). With a
 * store, a response whose rate-limit headers say the account's limit is exhausted cools the key until
 * the reset, unless {@code inference.retry.cooldown.rate-limit-headers=false}; with
 * {@code inference.retry.cooldown.release-spread}, the calls a cool-down held are released over that
 * span after its end rather than all at once.</li>
 * </ul>
 * {@code store=redis} without Spring Data Redis on the class path, or without a
 * {@link RedisConnectionFactory} bean, fails startup with a report naming
 * {@code spring-boot-starter-data-redis}.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBean(RetriedClients.class)
public final class InferenceRetryProtectionAutoConfiguration {

    private static final String STORE = "inference.retry.cooldown.store";

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = STORE, havingValue = "local")
    static class LocalStoreConfiguration {

        @Bean
        LocalCooldownStore inferenceRetryCooldownStore() {
            return LocalCooldownStore.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = STORE, havingValue = "redis")
    @ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
    static class RedisStoreConfiguration {

        private static final String LETTUCE_CONNECTION_FACTORY =
                "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

        @Bean(destroyMethod = "close")
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
            return RedisCooldownStore.builder(factory, namespace(properties, environment)).build();
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

        /**
         * Closes the Redis store when the application context begins to close, as the shutdown signal is
         * fired. The connection factory is a lifecycle bean; stopped first, it would close the store's
         * connections under it, so that a cool-down still being written was lost and reported as an
         * outage of Redis. Calls that end during the shutdown still cool their key within this
         * instance. (The bean's destroy method closes the store too, for a context destroyed without
         * being closed; closing twice does nothing.)
         */
        @Bean
        OnContextClose inferenceRetryCooldownStoreCloser(RedisCooldownStore inferenceRetryCooldownStore) {
            return new OnContextClose(inferenceRetryCooldownStore::close);
        }

        private static String namespace(InferenceRetryProperties properties, Environment environment) {
            String namespace = properties.getCooldown().getNamespace();
            if (StringUtils.hasText(namespace)) {
                return namespace;
            }
            String application = environment.getProperty("spring.application.name");
            return StringUtils.hasText(application) ? application : "default";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = STORE, havingValue = "redis")
    @ConditionalOnMissingClass("org.springframework.data.redis.connection.RedisConnectionFactory")
    static class MissingRedisConfiguration {

        @Bean
        CooldownStore inferenceRetryCooldownStore() {
            throw new RetryStoreUnavailableException("redis", "needs Spring Data Redis, which is not on the class path",
                    "Add org.springframework.boot:spring-boot-starter-data-redis and point spring.data.redis.* at "
                            + "your Redis, or set " + STORE + "=local to share cool-downs within this instance only.");
        }
    }
}
