package dev.inference.retry.autoconfigure.cooldown;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Application instances as the tests see them: each store on a connection factory of its own, as two
 * applications would have, with Lettuce's defaults but a command timeout of one second (what an
 * application sets with {@code spring.data.redis.timeout}). Closes everything it made, stores first.
 */
final class Instances implements AutoCloseable {

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private final Deque<Runnable> made = new ArrayDeque<>();

    LettuceConnectionFactory connectionFactory(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
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
