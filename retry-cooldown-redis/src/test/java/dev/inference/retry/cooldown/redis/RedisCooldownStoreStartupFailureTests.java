package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration;
import dev.inference.retry.autoconfigure.failure.RetryStoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code inference.retry.cooldown.store=redis} where the application's Redis is missing fails startup
 * with a report that says what to add, the Redis store's module on the class path as the starter
 * brings it. These tests need no {@code redis-server}.
 */
class RedisCooldownStoreStartupFailureTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InferenceRetryAutoConfiguration.class,
                InferenceRetryProtectionAutoConfiguration.class, RedisCooldownStoreAutoConfiguration.class))
        .withUserConfiguration(RedisCooldownStoreAutoConfigurationTests.OneClient.class)
        .withPropertyValues("inference.retry.stable-retries=0", "inference.retry.stable-delay=10ms",
                "inference.retry.max-attempts=2", "inference.retry.max-delay=10ms",
                "inference.retry.cooldown.store=redis");

    private static Throwable rootCause(AssertableApplicationContext context) {
        Throwable cause = context.getStartupFailure();
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Test
    void failsStartupForRedisWithoutSpringDataRedis() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context)).isInstanceOfSatisfying(RetryStoreUnavailableException.class,
                        (ex) -> assertThat(ex.action()).contains("spring-boot-starter-data-redis"));
            });
    }

    @Test
    void failsStartupForRedisWithoutAConnectionFactory() {
        runner.run((context) -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context)).isInstanceOfSatisfying(RetryStoreUnavailableException.class,
                    (ex) -> assertThat(ex).hasMessage("inference.retry.cooldown.store = redis is invalid: needs a "
                            + "RedisConnectionFactory bean, and there is none"));
        });
    }
}
