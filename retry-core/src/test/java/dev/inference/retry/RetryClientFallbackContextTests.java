package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A {@link RetryClient} called with a context that {@linkplain CallContext#withFallback() has a
 * fallback}: it gives up rather than wait for a provider, and still waits on its own backoff.
 */
class RetryClientFallbackContextTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    private final LocalCooldownStore store = LocalCooldownStore.withClock(
            () -> Duration.between(MutableClock.START, this.clock.instant()).toNanos());

    private RetryClient client(ScriptedClient inner) {
        return RetryClient.of(inner, Retrier.builder(THREE_ATTEMPTS)
            .name("openai")
            .random(FixedRandom.noJitter())
            .sleeper(this.sleeper)
            .cooldown(this.store, "openai")
            .build());
    }

    @Test
    void givesUpInsteadOfWaitingForARetryAfter() {
        HttpStatusException throttled = new HttpStatusException(429, "slow down", Duration.ofSeconds(30));
        ScriptedClient inner = ScriptedClient.script().thenFail(throttled);

        assertThatExceptionOfType(CoolingDownException.class)
            .isThrownBy(() -> client(inner).invoke(REQUEST, CallContext.background().withFallback()))
            .satisfies((ex) -> assertThat(ex.attempts()).isEqualTo(1))
            .satisfies((ex) -> assertThat(ex.refusedWait()).isEqualTo(Duration.ofSeconds(30)))
            .satisfies((ex) -> assertThat(ex.failure()).containsSame(throttled));
        assertThat(this.sleeper.delays()).isEmpty();
    }

    @Test
    void givesUpBeforeTheFirstAttemptWhenItsAccountIsCooling() {
        this.store.coolDown("openai", Duration.ofSeconds(10));
        ScriptedClient inner = ScriptedClient.script();

        assertThatExceptionOfType(CoolingDownException.class)
            .isThrownBy(() -> client(inner).invoke(REQUEST, CallContext.background().withFallback()))
            .satisfies((ex) -> assertThat(ex.attempts()).isZero())
            .satisfies((ex) -> assertThat(ex.failure()).isEmpty());
        assertThat(inner.attempts()).isZero();
    }

    @Test
    void waitsOnItsOwnBackoff() {
        ScriptedClient inner = ScriptedClient.script()
            .thenFail(new HttpStatusException(503, "unavailable", null))
            .thenRespond("ok");

        assertThat(client(inner).invoke(REQUEST, CallContext.background().withFallback()).attempts()).isEqualTo(2);
        assertThat(this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
    }

    @Test
    void waitsForARetryAfterShorterThanItsBackoff() {
        ScriptedClient inner = ScriptedClient.script()
            .thenFail(new HttpStatusException(503, "unavailable", Duration.ofMillis(10)))
            .thenRespond("ok");
        RetryClient client = RetryClient.of(inner, Retrier.builder(THREE_ATTEMPTS)
            .random(FixedRandom.noJitter())
            .sleeper(this.sleeper)
            .build());

        assertThat(client.invoke(REQUEST, CallContext.background().withFallback()).output()).isEqualTo("ok");
        assertThat(this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
    }

    @Test
    void waitsForTheRetryAfterWithoutAFallback() {
        ScriptedClient inner = ScriptedClient.script()
            .thenFail(new HttpStatusException(429, "slow down", Duration.ofSeconds(30)))
            .thenRespond("ok");

        assertThat(client(inner).invoke(REQUEST, CallContext.background()).output()).isEqualTo("ok");
        assertThat(this.clock.instant()).isEqualTo(MutableClock.START.plusSeconds(30));
    }
}
