package dev.inference.retry.cooldown.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Application instances as the tests see them: each store on a connection factory of its own, as two
 * applications would have, made as Spring Boot's auto-configuration makes it (Lettuce's defaults, with
 * commands that time out even while the client reconnects) with a command timeout of one second
 * (what an application sets with {@code spring.data.redis.timeout}) unless told otherwise. Closes
 * everything it made, stores first.
 */
final class Instances implements AutoCloseable {

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private final @Nullable Duration commandTimeout;

    private final Deque<Runnable> made = new ArrayDeque<>();

    Instances() {
        this(COMMAND_TIMEOUT);
    }

    /**
     * Instances whose applications set {@code spring.data.redis.timeout} to {@code commandTimeout},
     * or leave it unset ({@code null}: Lettuce's default, a minute).
     */
    Instances(@Nullable Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    LettuceConnectionFactory connectionFactory(int port) {
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
            .clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build());
        if (this.commandTimeout != null) {
            client.commandTimeout(this.commandTimeout);
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", port), client.build());
        factory.afterPropertiesSet();
        factory.start();
        this.made.push(factory::destroy);
        return factory;
    }

    RedisCooldownStore start(int port, String namespace) {
        return start(port, namespace, UnaryOperator.identity());
    }

    RedisCooldownStore start(int port, String namespace, LongSupplier nanoTime) {
        return start(port, namespace, (builder) -> builder.nanoTime(nanoTime));
    }

    RedisCooldownStore start(int port, String namespace, UnaryOperator<RedisCooldownStore.Builder> customizer) {
        RedisCooldownStore store = customizer
            .apply(RedisCooldownStore.builder(connectionFactory(port), namespace).startupWait(Duration.ofSeconds(10)))
            .build();
        this.made.push(store::close);
        return store;
    }

    @Override
    public void close() {
        while (!this.made.isEmpty()) {
            this.made.pop().run();
        }
    }
}
