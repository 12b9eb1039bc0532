package dev.inference.retry.cooldown.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.cooldown.CooldownReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class CooldownMessageTests {

    @ParameterizedTest
    @EnumSource(CooldownReason.class)
    void readsBackWhatItWrote(CooldownReason reason) {
        CooldownMessage message = new CooldownMessage(20_000, "instance-1", reason, "openai account: eu west");

        assertThat(CooldownMessage.parse(message.encode())).contains(message);
    }

    @Test
    void putsTheTimeLeftFirstTheReasonOnTheOriginAndTheKeyLast() {
        assertThat(new String(new CooldownMessage(1500, "a1", CooldownReason.RATE_LIMIT, "openai").encode(), UTF_8))
            .isEqualTo("1500 a1;rate_limit openai");
    }

    @Test
    void readsAMessageWithoutAReasonAsARetryAftersFromItsOrigin() {
        assertThat(CooldownMessage.parse("1500 a1 openai".getBytes(UTF_8)))
            .contains(new CooldownMessage(1500, "a1", CooldownReason.RETRY_AFTER, "openai"));
    }

    @Test
    void readsAReasonItDoesNotKnowAsARetryAfters() {
        assertThat(CooldownMessage.parse("1500 a1;later openai".getBytes(UTF_8)))
            .contains(new CooldownMessage(1500, "a1", CooldownReason.RETRY_AFTER, "openai"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "hello", "1500", "1500 a1", "1500  openai", "soon a1 openai", "0 a1 openai",
            "-5 a1 openai", "99999999999999999999 a1 openai" })
    void ignoresWhatIsNotACooldown(String text) {
        assertThat(CooldownMessage.parse(text.getBytes(UTF_8))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "20000", "", "rate-limit" })
    void readsAKeysValueThatIsNoReasonAsARetryAfters(String value) {
        assertThat(CooldownMessage.reason(value)).isEqualTo(CooldownReason.RETRY_AFTER);
    }
}
