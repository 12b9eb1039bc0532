package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How long {@link RedisLink} lets a connection attempt take: these tests need no {@code redis-server}
 * (the links' exchanges are tested through {@link RedisCooldownStoreTests}).
 */
class RedisLinkTests {

    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @Test
    void givesAConnectionAttemptLettucesConnectTimeoutWhenTheApplicationSetsNone() {
        LettuceConnectionFactory factory = factory(LettuceClientConfiguration.builder().build());

        assertThat(RedisLink.connectWait(factory, DEADLINE)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void givesAConnectionAttemptTheApplicationsConnectTimeout() {
        LettuceConnectionFactory factory = factory(connectTimeout(Duration.ofSeconds(3)));

        assertThat(RedisLink.connectWait(factory, DEADLINE)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void givesAConnectionAttemptAtLeastTheDeadline() {
        LettuceConnectionFactory factory = factory(connectTimeout(Duration.ofMillis(500)));

        assertThat(RedisLink.connectWait(factory, DEADLINE)).isEqualTo(DEADLINE);
    }

    private static LettuceClientConfiguration connectTimeout(Duration connectTimeout) {
        SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).build();
        return LettuceClientConfiguration.builder()
            .clientOptions(ClientOptions.builder().socketOptions(socket).build())
            .build();
    }

    private static LettuceConnectionFactory factory(LettuceClientConfiguration client) {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379), client);
    }
}
