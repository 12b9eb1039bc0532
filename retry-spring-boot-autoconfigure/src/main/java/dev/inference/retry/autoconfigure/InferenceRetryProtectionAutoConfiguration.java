package dev.inference.retry.autoconfigure;

import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.cooldown.LocalCooldownStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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
 * The Redis store is made by the module {@code retry-cooldown-redis}, which the starter brings;
 * {@code store=redis} without Spring Data Redis on the class path fails startup here with a report
 * naming {@code spring-boot-starter-data-redis}, and without that module with one naming it.
 */
@AutoConfiguration(after = InferenceRetryAutoConfiguration.class)
@ConditionalOnBean(RetriedClients.class)
public final class InferenceRetryProtectionAutoConfiguration {

    private static final String STORE = "inference.retry.cooldown.store";

    /** The Redis store, named: it lives in its own module, which the starter brings and this one never needs. */
    private static final String REDIS_STORE = "dev.inference.retry.cooldown.redis.RedisCooldownStore";

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
    @ConditionalOnMissingClass("org.springframework.data.redis.connection.RedisConnectionFactory")
    static class MissingRedisConfiguration {

        @Bean
        CooldownStore inferenceRetryCooldownStore() {
            throw new RetryStoreUnavailableException("redis", "needs Spring Data Redis, which is not on the class path",
                    "Add org.springframework.boot:spring-boot-starter-data-redis and point spring.data.redis.* at "
                            + "your Redis, or set " + STORE + "=local to share cool-downs within this instance only.");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = STORE, havingValue = "redis")
    @ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
    @ConditionalOnMissingClass(REDIS_STORE)
    static class MissingRedisStoreConfiguration {

        @Bean
        CooldownStore inferenceRetryCooldownStore() {
            throw new RetryStoreUnavailableException("redis", "needs the module dev.inference:retry-cooldown-redis, "
                    + "which is not on the class path",
                    "Depend on dev.inference:retry-spring-boot-starter, which brings it, or add "
                            + "dev.inference:retry-cooldown-redis, or set " + STORE
                            + "=local to share cool-downs within this instance only.");
        }
    }
}
