package dev.inference.failure;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit headers that a provider sends with every response, successful or not, one constant
 * per family: read by {@link #exhaustedFor}, they tell whether the account that made the request has
 * no requests or no tokens left before a reset, and how long until that reset, so that a retry layer
 * can hold every caller of the account off before the provider answers 429.
 *
 * <p>A limit is exhausted when its {@code remaining} header is {@code 0}; its reset is then the wait.
 * A {@code remaining} that is absent or not a whole number, and a reset that is absent, garbage,
 * zero, negative or in the past, say nothing: that limit is passed over. Nothing here throws for any
 * header value, and enormous resets saturate to the largest {@link Duration}; capping the wait is the
 * retry layer's job, as for {@link RetryAfter}.
 *
 * <p>Trap: {@link #ANTHROPIC}'s reset is an instant of the provider's clock. It is turned into a
 * duration once, against the clock given, when the response is read; whoever keeps the wait then
 * counts it on a monotonic clock. A difference between the two hosts' clocks makes the wait that much
 * longer or shorter (see {@link #parseAnthropicReset}); {@link #OPENAI}'s durations have no such error.
 */
public enum RateLimitHeaders {

    /**
     * OpenAI's: {@code x-ratelimit-remaining-requests} with {@code x-ratelimit-reset-requests}, and
     * the same two for {@code -tokens}; a reset is a duration such as {@code 1s}, {@code 6m0s},
     * {@code 1m30.5s} or {@code 12ms} (see {@link #parseOpenAiReset}).
     */
    OPENAI((value, clock) -> parseOpenAiReset(value),
            new Limit("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"),
            new Limit("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens")),

    /**
     * Anthropic's: {@code anthropic-ratelimit-requests-remaining} with
     * {@code anthropic-ratelimit-requests-reset}, and the same two for {@code tokens},
     * {@code input-tokens} and {@code output-tokens}; a reset is an RFC 3339 instant such as
     * {@code 2026-01-01T00:00:30Z} (see {@link #parseAnthropicReset}).
     */
    ANTHROPIC(RateLimitHeaders::parseAnthropicReset,
            new Limit("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"),
            new Limit("anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"),
            new Limit("anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"),
            new Limit("anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"));

    /** Nanoseconds per unit of a Go duration, as OpenAI writes its resets (Go's time.ParseDuration). */
    private static final Map<String, Long> UNITS = Map.of("ns", 1L, "us", 1_000L, "\u00b5s", 1_000L,
            "\u03bcs", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);

    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    /** The remaining and reset header of each limit of the family, in the order they are read. */
    private final List<Limit> limits;

    private final BiFunction<@Nullable String, Clock, Optional<Duration>> reset;

    RateLimitHeaders(BiFunction<@Nullable String, Clock, Optional<Duration>> reset, Limit... limits) {
        this.reset = reset;
        this.limits = List.of(limits);
    }

    /**
     * Reads a response's headers: how long until the latest reset among the limits that are
     * exhausted, since every one of them must have reset before a request can succeed.
     *
     * @param firstHeaderValue gives the first value of the response's header of a name, or
     *     {@code null} when the response has none; HTTP header names are case-insensitive, so it
     *     should look them up that way
     * @param clock the clock that says what "now" is for a reset given as an instant
     * @return the positive wait, or empty when no limit is exhausted with a reset still to come
     * @throws NullPointerException if an argument is {@code null}
     */
    public Optional<Duration> exhaustedFor(Function<String, @Nullable String> firstHeaderValue, Clock clock) {
        Objects.requireNonNull(firstHeaderValue, "firstHeaderValue must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
        Duration latest = null;
        for (Limit limit : this.limits) {
            if (isZero(firstHeaderValue.apply(limit.remaining()))) {
                Optional<Duration> reset = this.reset.apply(firstHeaderValue.apply(limit.reset()), clock);
                if (reset.isPresent() && (latest == null || reset.get().compareTo(latest) > 0)) {
                    latest = reset.get();
                }
            }
        }
        return Optional.ofNullable(latest);
    }

    /**
     * Parses one of OpenAI's resets: a duration as Go writes one, a sequence of decimal numbers, each
     * with a unit ({@code h}, {@code m}, {@code s}, {@code ms}, {@code us} or {@code µs}, {@code ns}),
     * such as {@code 6m0s}, {@code 1m30.5s}, {@code 12ms} or {@code .5s}. Fractions finer than a
     * nanosecond are dropped.
     *
     * @param headerValue the header's value, or {@code null} when the header is absent; surrounding
     *     white space is ignored
     * @return the positive duration, or empty when the value is absent, garbage (a number without a
     *     unit, a sign, an unknown unit, a space inside), or zero
     */
    public static Optional<Duration> parseOpenAiReset(@Nullable String headerValue) {
        if (headerValue == null) {
            return Optional.empty();
        }
        String value = headerValue.strip();
        int length = value.length();
        BigDecimal nanos = BigDecimal.ZERO;
        int i = 0;
        if (length == 0) {
            return Optional.empty();
        }
        while (i < length) {
            int start = i;
            i = skipDigits(value, i);
            int wholeEnd = i;
            if (i < length && value.charAt(i) == '.') {
                i = skipDigits(value, i + 1);
            }
            int numberEnd = i;
            boolean hasDigits = wholeEnd > start || numberEnd > wholeEnd + 1;
            while (i < length && !isDigit(value.charAt(i)) && value.charAt(i) != '.') {
                i++;
            }
            Long unit = UNITS.get(value.substring(numberEnd, i));
            if (!hasDigits || unit == null) {
                return Optional.empty();
            }
            nanos = nanos.add(new BigDecimal(value.substring(start, numberEnd)).multiply(BigDecimal.valueOf(unit)));
        }
        return positive(ofNanos(nanos.setScale(0, RoundingMode.DOWN).toBigIntegerExact()));
    }

    /**
     * Parses one of Anthropic's resets: an RFC 3339 instant, such as {@code 2026-01-01T00:00:30Z} or
     * {@code 2026-01-01T01:00:30.250+01:00} (either case of {@code T} and {@code Z}), measured from the
     * clock's now. The clocks of the provider and of this host disagree by their skew: a host whose
     * clock is {@code S} behind the provider's waits {@code S} longer than the provider meant, one
     * that is ahead {@code S} shorter (and a request sent early earns the 429 it was to avoid). With
     * clocks kept by NTP, {@code S} is milliseconds.
     *
     * @param headerValue the header's value, or {@code null} when the header is absent; surrounding
     *     white space is ignored
     * @param clock the clock that says what "now" is
     * @return the positive time from now until the instant, or empty when the value is absent,
     *     garbage, or not in the future
     * @throws NullPointerException if {@code clock} is {@code null}
     */
    public static Optional<Duration> parseAnthropicReset(@Nullable String headerValue, Clock clock) {
        Objects.requireNonNull(clock, "clock must not be null");
        if (headerValue == null) {
            return Optional.empty();
        }
        Instant reset;
        try {
            reset = OffsetDateTime.parse(headerValue.strip().toUpperCase(Locale.ROOT),
                    DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        }
        catch (DateTimeException garbage) {
            return Optional.empty();
        }
        return positive(Duration.between(clock.instant(), reset));
    }

    /** Whether a remaining count is a whole number that is zero, such as {@code 0} or {@code 000}. */
    private static boolean isZero(@Nullable String remaining) {
        if (remaining == null) {
            return false;
        }
        String value = remaining.strip();
        if (value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    private static int skipDigits(String value, int from) {
        int i = from;
        while (i < value.length() && isDigit(value.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static Duration ofNanos(BigInteger nanos) {
        BigInteger[] secondsAndNanos = nanos.divideAndRemainder(NANOS_PER_SECOND);
        return (secondsAndNanos[0].bitLength() < Long.SIZE)
                ? Duration.ofSeconds(secondsAndNanos[0].longValue(), secondsAndNanos[1].longValue())
                : RetryAfter.SATURATED;
    }

    private static Optional<Duration> positive(Duration delay) {
        return (delay.isNegative() || delay.isZero()) ? Optional.empty() : Optional.of(delay);
    }

    /** One limit of a family: the header that counts what is left of it, and the one that says when it resets. */
    private record Limit(String remaining, String reset) {
    }
}
