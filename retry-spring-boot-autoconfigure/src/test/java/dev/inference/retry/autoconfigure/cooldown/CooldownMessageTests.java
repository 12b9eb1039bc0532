package dev.inference.retry.autoconfigure.cooldown;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CooldownMessageTests {

    @Test
    void readsBackWhatItWrote() {
        CooldownMessage message = new CooldownMessage(20_000, "instance-1", "openai account: eu west");

        assertThat(CooldownMessage.parse(message.encode())).contains(message);
    }

    @Test
    void putsTheTimeLeftFirstAndTheKeyLast() {
        assertThat(new String(new CooldownMessage(1500, "a1", "openai").encode(), UTF_8)).isEqualTo("1500 a1 openai");
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "hello", "1500", "1500 a1", "1500  openai", "soon a1 openai", "0 a1 openai",
            "-5 a1 openai", "99999999999999999999 a1 openai" })
    void ignoresWhatIsNotACooldown(String text) {
        assertThat(CooldownMessage.parse(text.getBytes(UTF_8))).isEmpty();
    }
}
