package dev.inference.retry.cooldown.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.inference.retry.autoconfigure.RetryTags;
import dev.inference.retry.cooldown.CooldownReason;
import java.util.Optional;

/**
 * What an instance publishes when it has cooled a key in Redis: the time left, not an end instant,
 * so that each receiver counts it down on its own clock, and why.
 *
 * <p>The text form is {@code <ttl-millis> <origin>;<reason> <key>}: the key comes last because it may
 * itself hold spaces. The reason rides on the origin's word, so that an instance that knows no
 * reasons (an earlier version, which wrote {@code <ttl-millis> <origin> <key>}) reads the message as a
 * cool-down of another origin, and a message without one is read as a {@code Retry-After}'s.
 *
 * @param ttlMillis the time left, in milliseconds, positive
 * @param origin the id of the instance that published it, without spaces or semicolons
 * @param reason why the key was cooled
 * @param key the provider account
 */
record CooldownMessage(long ttlMillis, String origin, CooldownReason reason, String key) {

    byte[] encode() {
        return (this.ttlMillis + " " + this.origin + ";" + tag(this.reason) + " " + this.key).getBytes(UTF_8);
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
        String origin = text.substring(afterTtl + 1, afterOrigin);
        int semicolon = origin.indexOf(';');
        CooldownReason reason = (semicolon < 0) ? CooldownReason.RETRY_AFTER : reason(origin.substring(semicolon + 1));
        return Optional.of(new CooldownMessage(ttlMillis, (semicolon < 0) ? origin : origin.substring(0, semicolon),
                reason, text.substring(afterOrigin + 1)));
    }

    /** The word for a reason, in messages and as the value of a cool-down's Redis key: its meters' tag. */
    static String tag(CooldownReason reason) {
        return RetryTags.reason(reason);
    }

    /**
     * Reads a reason's word; anything else, such as the time to live an earlier version kept as the
     * key's value, is a {@code Retry-After}'s, the only reason there was.
     */
    static CooldownReason reason(String tag) {
        for (CooldownReason reason : CooldownReason.values()) {
            if (tag(reason).equals(tag)) {
                return reason;
            }
        }
        return CooldownReason.RETRY_AFTER;
    }
}
