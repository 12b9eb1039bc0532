package dev.inference.retry.autoconfigure.cooldown;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Optional;

/**
 * What an instance publishes when it has cooled a key in Redis: the time left, not an end instant,
 * so that each receiver counts it down on its own clock.
 *
 * <p>The text form is {@code <ttl-millis> <origin> <key>}: the key comes last because it may itself
 * hold spaces.
 *
 * @param ttlMillis the time left, in milliseconds, positive
 * @param origin the id of the instance that published it, without spaces
 * @param key the provider account
 */
record CooldownMessage(long ttlMillis, String origin, String key) {

    byte[] encode() {
        return (this.ttlMillis + " " + this.origin + " " + this.key).getBytes(UTF_8);
    }

    /**
     * Reads a message, or nothing when the bytes are not one (another publisher on the channel).
     */
    static Optional<CooldownMessage> parse(byte[] body) {
        String text = new String(body, UTF_8);
        int afterTtl = text.indexOf(' ');
        int afterOrigin = (afterTtl < 0) ? -1 : text.indexOf(' ', afterTtl + 1);
        if (afterOrigin < 0 || afterOrigin == afterTtl + 1) {
            return Optional.empty();
        }
        long ttlMillis;
        try {
            ttlMillis = Long.parseLong(text, 0, afterTtl, 10);
        }
        catch (NumberFormatException ex) {
            return Optional.empty();
        }
        if (ttlMillis <= 0) {
            return Optional.empty();
        }
        return Optional.of(new CooldownMessage(ttlMillis, text.substring(afterTtl + 1, afterOrigin),
                text.substring(afterOrigin + 1)));
    }
}
