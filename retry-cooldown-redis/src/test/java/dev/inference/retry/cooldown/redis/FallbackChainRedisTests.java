package dev.inference.retry.cooldown.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.cooldown.CooldownStore;
import dev.inference.retry.fallback.FallbackClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fallback chains on two instances that share cool-downs through a real {@code redis-server}: a
 * {@code Retry-After} that one instance's member hears makes the other instance's chain skip that
 * member at once, without a request to it.
 */
class FallbackChainRedisTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Hello");

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final String namespace = "app-" + UUID.randomUUID();

    private final Instances instances = new Instances();

    @AfterEach
    void closeInstances() {
        this.instances.close();
    }

    private static FallbackClient chain(CooldownStore store, InferenceClient openai) {
        Policy policy = new Policy(0, Duration.ofMillis(10), 3, Duration.ofMillis(10));
        return FallbackClient.builder("chat")
            .member("openai", RetryClient.of(openai, Retrier.builder(policy).name("openai").cooldown(store, "openai")
                .build()))
            .member("backup", RetryClient.of(new Answering("backup"), Retrier.builder(policy).name("backup")
                .cooldown(store, "backup")
                .build()))
            .build();
    }

    @Test
    void aRetryAfterHeardByOneInstanceMakesTheOtherSkipThatMemberAtOnce() {
        Counting throttled = new Counting(new HttpStatusException(429, "slow down", Duration.ofSeconds(30)));
        Counting untouched = new Counting(new HttpStatusException(500, "never called", null));
        RedisCooldownStore firstStore = this.instances.start(redis.server().port(), this.namespace);
        RedisCooldownStore secondStore = this.instances.start(redis.server().port(), this.namespace);
        FallbackClient first = chain(firstStore, throttled);
        FallbackClient second = chain(secondStore, untouched);

        assertThat(first.invoke(REQUEST).output()).isEqualTo("backup");
        Poll.until("heard by the second instance", DEADLINE, () -> !secondStore.remaining("openai").isZero());
        long start = System.nanoTime();

        assertThat(second.invoke(REQUEST).output()).isEqualTo("backup");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(throttled.calls()).isEqualTo(1);
        assertThat(untouched.calls()).isZero();
        assertThat(second.chain().status().get(0).coolingUntil()).isPresent();
    }

    /** A member that answers with its name. */
    private record Answering(String name) implements InferenceClient {

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            return InferenceResponse.of(this.name);
        }

        @Override
        public StreamReader stream(InferenceRequest request, CallContext context) {
            throw new UnsupportedOperationException("Not streamed here");
        }
    }

    /** A member that always fails with the same failure, and counts its calls. */
    private static final class Counting implements InferenceClient {

        private final RuntimeException failure;

        private final AtomicInteger calls = new AtomicInteger();

        Counting(RuntimeException failure) {
            this.failure = failure;
        }

        int calls() {
            return this.calls.get();
        }

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            this.calls.incrementAndGet();
            throw this.failure;
        }

        @Override
        public StreamReader stream(InferenceRequest request, CallContext context) {
            throw new UnsupportedOperationException("Not streamed here");
        }
    }
}
