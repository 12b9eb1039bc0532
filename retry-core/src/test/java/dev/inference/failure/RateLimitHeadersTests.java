package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class RateLimitHeadersTests {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    /** The largest whole number of seconds a Duration holds. */
    private static final Duration SATURATED = Duration.ofSeconds(Long.MAX_VALUE);

    /** Headers looked up by name, ignoring case, as HTTP clients do. */
    private static Function<String, @Nullable String> headers(String... namesAndValues) {
        Map<String, String> headers = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.put(namesAndValues[i].toLowerCase(Locale.ROOT), namesAndValues[i + 1]);
        }
        return (name) -> headers.get(name.toLowerCase(Locale.ROOT));
    }

    @Nested
    class OpenAiReset {

        @ParameterizedTest(name = "\"{0}\" is {1} ns")
        @CsvSource(delimiter = '|', value = { "1s|1000000000", "6m0s|360000000000", "1m30.5s|90500000000",
                "12ms|12000000", "20ms|20000000", "1h|3600000000000", "2h45m0.5s|9900500000000", "1.5h|5400000000000",
                "0.5s|500000000", ".5s|500000000", "5.s|5000000000", "1ns|1", "7us|7000", "7\u00b5s|7000",
                "7\u03bcs|7000", "0.000000001s|1", "0.0000000019s|1", "1s1s|2000000000", "'  1s\t'|1000000000",
                "0s1ms|1000000", "001.250s|1250000000" })
        void parsesGoDurations(String value, long nanos) {
            assertThat(RateLimitHeaders.parseOpenAiReset(value)).contains(Duration.ofNanos(nanos));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "0s", "0", "0ms", "0h0m0s", "0.0000000009s" })
        void ignoresAZeroDuration(String value) {
            assertThat(RateLimitHeaders.parseOpenAiReset(value)).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "-1s", "-0.5s", "+1s", "1", "s", ".s", "1.5.5s", "1 s", "1s 2s", "1x", "1S", "1sec",
                "1d", "ms", "1..5s", "", "   ", "soon", "1e3s", "0x10s", "١s", "1s-", "PT1S" })
        void ignoresNegativeValuesAndGarbage(String value) {
            assertThat(RateLimitHeaders.parseOpenAiReset(value)).isEmpty();
        }

        @ParameterizedTest
        @NullSource
        void ignoresAnAbsentHeader(@Nullable String value) {
            assertThat(RateLimitHeaders.parseOpenAiReset(value)).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "9223372036854775808s", "99999999999999999999999999999999999999h",
                "2562048h" + "0m0s" + "9223372036854775807s" })
        void saturatesEnormousValues(String value) {
            assertThat(RateLimitHeaders.parseOpenAiReset(value)).contains(SATURATED);
        }

        @Test
        void keepsTheLargestWholeNumberOfSeconds() {
            assertThat(RateLimitHeaders.parseOpenAiReset("9223372036854775807.999999999s"))
                .contains(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
        }

        /** Go's own spelling of a duration, as its time.Duration.String() writes it. */
        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.inference.failure.RateLimitHeadersTests#randomDurations")
        void readsEveryDurationAsGoWritesIt(Duration duration) {
            assertThat(RateLimitHeaders.parseOpenAiReset(goString(duration))).contains(duration);
        }
    }

    @Nested
    class AnthropicReset {

        @ParameterizedTest(name = "\"{0}\" is {1} ms from now")
        @CsvSource(delimiter = '|', value = { "2026-01-01T00:00:30Z|30000", "2026-01-01T00:00:00.001Z|1",
                "2026-01-01T01:00:30+01:00|30000", "2025-12-31T23:00:30-01:00|30000",
                "2026-01-01T00:00:30.250Z|30250", "2026-01-01t00:00:30z|30000", "' 2026-01-01T00:01:00Z '|60000",
                "2026-01-01T00:00:00.000000001Z|0.000001" })
        void parsesRfc3339Instants(String value, double millis) {
            assertThat(RateLimitHeaders.parseAnthropicReset(value, CLOCK))
                .contains(Duration.ofNanos(Math.round(millis * 1_000_000)));
        }

        @Test
        void measuresFromTheClocksNow() {
            Clock later = Clock.offset(CLOCK, Duration.ofSeconds(20));
            assertThat(RateLimitHeaders.parseAnthropicReset("2026-01-01T00:00:30Z", later))
                .contains(Duration.ofSeconds(10));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "2026-01-01T00:00:00Z", "2025-12-31T23:59:59.999999999Z", "2026-01-01T01:00:00+01:00",
                "1970-01-01T00:00:00Z" })
        void ignoresNowAndThePast(String value) {
            assertThat(RateLimitHeaders.parseAnthropicReset(value, CLOCK)).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "2026-01-01T00:00:30", "2026-01-01", "00:00:30Z", "2026-02-30T00:00:00Z",
                "2026-01-01T24:00:01Z", "2026-01-01 00:00:30Z", "Thu, 01 Jan 2026 00:00:30 GMT", "30", "30s", "",
                "soon", "2026-01-01T00:00:30Z junk", "+2026-01-01T00:00:30Z" })
        void ignoresGarbage(String value) {
            assertThat(RateLimitHeaders.parseAnthropicReset(value, CLOCK)).isEmpty();
        }

        @ParameterizedTest
        @NullSource
        void ignoresAnAbsentHeader(@Nullable String value) {
            assertThat(RateLimitHeaders.parseAnthropicReset(value, CLOCK)).isEmpty();
        }

        @Test
        void parsesAnInstantFarInTheFuture() {
            assertThat(RateLimitHeaders.parseAnthropicReset("+999999999-12-31T23:59:59Z", CLOCK))
                .contains(Duration.between(NOW, Instant.parse("+999999999-12-31T23:59:59Z")));
        }

        @Test
        void refusesANullClock() {
            assertThatNullPointerException().isThrownBy(() -> RateLimitHeaders.parseAnthropicReset("x", null))
                .withMessage("clock must not be null");
        }

        @ParameterizedTest(name = "{0} from now, written at offset {1}")
        @MethodSource("dev.inference.failure.RateLimitHeadersTests#randomInstants")
        void readsEveryFutureInstantAtAnyOffset(Duration fromNow, ZoneOffset offset) {
            String written = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(NOW.plus(fromNow).atOffset(offset));
            assertThat(RateLimitHeaders.parseAnthropicReset(written, CLOCK)).contains(fromNow);
        }
    }

    @Nested
    class OpenAiHeaders {

        @Test
        void waitsForTheResetOfExhaustedRequests() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", "0",
                    "x-ratelimit-reset-requests", "1.5s", "x-ratelimit-remaining-tokens", "3000",
                    "x-ratelimit-reset-tokens", "6m0s"), CLOCK)).contains(Duration.ofMillis(1500));
        }

        @Test
        void waitsForTheResetOfExhaustedTokens() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", "59",
                    "x-ratelimit-reset-requests", "1s", "x-ratelimit-remaining-tokens", "0",
                    "x-ratelimit-reset-tokens", "6m0s"), CLOCK)).contains(Duration.ofMinutes(6));
        }

        @Test
        void waitsForTheLaterResetWhenBothAreExhausted() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", "0",
                    "x-ratelimit-reset-requests", "20s", "x-ratelimit-remaining-tokens", "0",
                    "x-ratelimit-reset-tokens", "12ms"), CLOCK)).contains(Duration.ofSeconds(20));
        }

        @ParameterizedTest(name = "remaining \"{0}\"")
        @ValueSource(strings = { "1", "59", "9223372036854775808", "-0", "-1", "0.0", "none", "", " ", "0 0" })
        void waitsForNothingUnlessALimitIsAtZero(String remaining) {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", remaining,
                    "x-ratelimit-reset-requests", "1s"), CLOCK)).isEmpty();
        }

        @ParameterizedTest(name = "remaining \"{0}\"")
        @ValueSource(strings = { "0", "00", " 0 " })
        void countsEverySpellingOfZero(String remaining) {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", remaining,
                    "x-ratelimit-reset-requests", "1s"), CLOCK)).contains(Duration.ofSeconds(1));
        }

        @ParameterizedTest(name = "reset \"{0}\"")
        @ValueSource(strings = { "0s", "-1s", "garbage" })
        void passesOverAnExhaustedLimitWithoutAResetToCome(String reset) {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", "0",
                    "x-ratelimit-reset-requests", reset, "x-ratelimit-remaining-tokens", "0",
                    "x-ratelimit-reset-tokens", "2s"), CLOCK)).contains(Duration.ofSeconds(2));
        }

        @Test
        void waitsForNothingWhenOnlyTheResetIsGiven() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-reset-requests", "1s",
                    "x-ratelimit-reset-tokens", "6m0s"), CLOCK)).isEmpty();
        }

        @Test
        void passesOverAnExhaustedLimitWithoutItsReset() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("x-ratelimit-remaining-requests", "0"), CLOCK))
                .isEmpty();
        }

        @Test
        void waitsForNothingWithoutHeaders() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers(), CLOCK)).isEmpty();
        }

        @Test
        void ignoresAnthropicsHeaders() {
            assertThat(RateLimitHeaders.OPENAI.exhaustedFor(headers("anthropic-ratelimit-requests-remaining", "0",
                    "anthropic-ratelimit-requests-reset", "2026-01-01T00:00:30Z"), CLOCK)).isEmpty();
        }

        @Test
        void refusesNullArguments() {
            assertThatNullPointerException().isThrownBy(() -> RateLimitHeaders.OPENAI.exhaustedFor(null, CLOCK))
                .withMessage("firstHeaderValue must not be null");
            assertThatNullPointerException().isThrownBy(() -> RateLimitHeaders.OPENAI.exhaustedFor(headers(), null))
                .withMessage("clock must not be null");
        }
    }

    @Nested
    class AnthropicHeaders {

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = { "requests", "tokens", "input-tokens", "output-tokens" })
        void waitsForTheResetOfAnyExhaustedLimit(String limit) {
            assertThat(RateLimitHeaders.ANTHROPIC.exhaustedFor(headers("anthropic-ratelimit-" + limit + "-remaining",
                    "0", "anthropic-ratelimit-" + limit + "-reset", "2026-01-01T00:00:30Z"), CLOCK))
                .contains(Duration.ofSeconds(30));
        }

        @Test
        void waitsForTheLatestResetOfTheExhaustedLimits() {
            assertThat(RateLimitHeaders.ANTHROPIC.exhaustedFor(headers(
                    "anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset",
                    "2026-01-01T00:00:05Z", "anthropic-ratelimit-input-tokens-remaining", "0",
                    "anthropic-ratelimit-input-tokens-reset", "2026-01-01T00:00:40Z",
                    "anthropic-ratelimit-output-tokens-remaining", "120",
                    "anthropic-ratelimit-output-tokens-reset", "2026-01-01T00:01:00Z"), CLOCK))
                .contains(Duration.ofSeconds(40));
        }

        @Test
        void waitsForNothingWhenEveryLimitHasSomeLeft() {
            assertThat(RateLimitHeaders.ANTHROPIC.exhaustedFor(headers(
                    "anthropic-ratelimit-requests-remaining", "1", "anthropic-ratelimit-requests-reset",
                    "2026-01-01T00:00:05Z", "anthropic-ratelimit-tokens-remaining", "79000",
                    "anthropic-ratelimit-tokens-reset", "2026-01-01T00:00:40Z"), CLOCK)).isEmpty();
        }

        @Test
        void passesOverAResetInThePast() {
            assertThat(RateLimitHeaders.ANTHROPIC.exhaustedFor(headers("anthropic-ratelimit-requests-remaining", "0",
                    "anthropic-ratelimit-requests-reset", "2025-12-31T23:59:59Z"), CLOCK)).isEmpty();
        }

        @Test
        void ignoresOpenAisHeaders() {
            assertThat(RateLimitHeaders.ANTHROPIC.exhaustedFor(headers("x-ratelimit-remaining-requests", "0",
                    "x-ratelimit-reset-requests", "1s"), CLOCK)).isEmpty();
        }
    }

    /** Writes a duration as Go's time.Duration.String() does, which is how OpenAI writes its resets. */
    static String goString(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        if (nanos < 1_000_000) {
            return decimal(nanos, 1_000) + "\u00b5s";
        }
        if (nanos < 1_000_000_000) {
            return decimal(nanos, 1_000_000) + "ms";
        }
        long hours = nanos / 3_600_000_000_000L;
        long minutes = (nanos / 60_000_000_000L) % 60;
        String seconds = decimal(nanos % 60_000_000_000L, 1_000_000_000) + "s";
        if (hours > 0) {
            return hours + "h" + minutes + "m" + seconds;
        }
        return (minutes > 0) ? minutes + "m" + seconds : seconds;
    }

    private static String decimal(long value, long unit) {
        String fraction = String.format(Locale.ROOT, "%0" + Long.toString(unit).length() + "d", value % unit)
            .substring(1)
            .replaceAll("0+$", "");
        return (value / unit) + (fraction.isEmpty() ? "" : "." + fraction);
    }

    /** Seeded, so that a failing case is the same on every run: each unit's range, and its edges. */
    static Stream<Arguments> randomDurations() {
        SplittableRandom random = new SplittableRandom(20);
        List<Arguments> cases = new ArrayList<>();
        long[] bounds = { 1_000, 1_000_000, 1_000_000_000, 3_600_000_000_000L, 100 * 3_600_000_000_000L };
        long lower = 1;
        for (long upper : bounds) {
            cases.add(Arguments.of(Duration.ofNanos(lower)));
            cases.add(Arguments.of(Duration.ofNanos(upper - 1)));
            for (int i = 0; i < 40; i++) {
                cases.add(Arguments.of(Duration.ofNanos(random.nextLong(lower, upper))));
            }
            lower = upper;
        }
        return cases.stream();
    }

    /** Seeded: a future instant within a day, to the nanosecond, at an offset of any hour and minute. */
    static Stream<Arguments> randomInstants() {
        SplittableRandom random = new SplittableRandom(21);
        List<Arguments> cases = new ArrayList<>();
        cases.add(Arguments.of(Duration.ofNanos(1), ZoneOffset.UTC));
        for (int i = 0; i < 100; i++) {
            cases.add(Arguments.of(Duration.ofNanos(random.nextLong(1, 86_400_000_000_000L)),
                    ZoneOffset.ofTotalSeconds(60 * random.nextInt(-18 * 60, 18 * 60 + 1))));
        }
        return cases.stream();
    }
}
