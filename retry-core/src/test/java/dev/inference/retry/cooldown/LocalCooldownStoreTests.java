package dev.inference.retry.cooldown;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.Backoff;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LocalCooldownStoreTests {

    private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - 1_000_000_000L);

    private final LocalCooldownStore store = LocalCooldownStore.withClock(this.nanos::get);

    private void advance(Duration duration) {
        this.nanos.addAndGet(duration.toNanos());
    }

    @Test
    void hasNoCooldownForAKeyNeverCooled() {
        assertThat(this.store.remaining("openai")).isZero();
    }

    @Test
    void coolsAKeyForTheDurationAsked() {
        this.store.coolDown("openai", Duration.ofSeconds(20));

        assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void countsTheCooldownDownAsTimePasses() {
        this.store.coolDown("openai", Duration.ofSeconds(20));

        advance(Duration.ofSeconds(15));

        assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void endsTheCooldownWhenItsTimeIsUp() {
        this.store.coolDown("openai", Duration.ofSeconds(20));

        advance(Duration.ofSeconds(20));

        assertThat(this.store.remaining("openai")).isZero();
        assertThat(this.store.snapshot()).isEmpty();
    }

    @Test
    void neverShortensACooldownInForce() {
        this.store.coolDown("openai", Duration.ofSeconds(20));

        this.store.coolDown("openai", Duration.ofSeconds(2));

        assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void lengthensACooldownThatEndsSooner() {
        this.store.coolDown("openai", Duration.ofSeconds(2));
        advance(Duration.ofSeconds(1));

        this.store.coolDown("openai", Duration.ofSeconds(20));

        assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void capsACooldownAtFiveMinutes() {
        this.store.coolDown("openai", Duration.ofHours(1));

        assertThat(this.store.remaining("openai")).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void capsACooldownWhereTheBackoffCapsARetryAfter() {
        assertThat(Duration.ofNanos(LocalCooldownStore.LONGEST_NANOS)).isEqualTo(Backoff.RETRY_AFTER_CAP);
    }

    @Test
    void ignoresAZeroCooldown() {
        this.store.coolDown("openai", Duration.ZERO);

        assertThat(this.store.snapshot()).isEmpty();
    }

    @Test
    void keepsEachKeysCooldownApart() {
        this.store.coolDown("openai", Duration.ofSeconds(20));

        assertThat(this.store.remaining("anthropic")).isZero();
        assertThat(this.store.snapshot()).containsOnlyKeys("openai");
        assertThat(this.store).hasToString("LocalCooldownStore{openai=PT20S}");
    }

    @Test
    void keepsTheReasonOfTheCooldownInForce() {
        this.store.coolDown("openai", Duration.ofSeconds(2), CooldownReason.RATE_LIMIT);

        assertThat(this.store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
    }

    @Test
    void coolsDownForARetryAfterUnlessGivenAReason() {
        this.store.coolDown("openai", Duration.ofSeconds(2));

        assertThat(this.store.reason("openai")).contains(CooldownReason.RETRY_AFTER);
    }

    @Test
    void takesTheReasonOfACooldownThatEndsLater() {
        this.store.coolDown("openai", Duration.ofSeconds(2), CooldownReason.RETRY_AFTER);

        this.store.coolDown("openai", Duration.ofSeconds(2).plusNanos(1), CooldownReason.RATE_LIMIT);

        assertThat(this.store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
    }

    @Test
    void keepsTheReasonWhenACooldownThatEndsNoLaterIsAsked() {
        this.store.coolDown("openai", Duration.ofSeconds(2), CooldownReason.RETRY_AFTER);

        this.store.coolDown("openai", Duration.ofSeconds(2), CooldownReason.RATE_LIMIT);

        assertThat(this.store.reason("openai")).contains(CooldownReason.RETRY_AFTER);
    }

    @Test
    void hasNoReasonOnceTheCooldownEnded() {
        this.store.coolDown("openai", Duration.ofSeconds(2), CooldownReason.RATE_LIMIT);

        advance(Duration.ofSeconds(2));

        assertThat(this.store.reason("openai")).isEmpty();
        assertThat(this.store.reason("anthropic")).isEmpty();
    }
}
