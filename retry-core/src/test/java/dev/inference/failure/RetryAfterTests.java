package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTests {

    /** "Now" for every HTTP-date: Sunday, 6 November 1994, 08:49:07 UTC (the RFC's example, 30 s early). */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("1994-11-06T08:49:07Z"), ZoneOffset.UTC);

    /** The largest whole number of seconds a Duration holds. */
    private static final Duration SATURATED = Duration.ofSeconds(Long.MAX_VALUE);

    @Nested
    class DeltaSeconds {

        @ParameterizedTest(name = "\"{0}\" is {1} s")
        @CsvSource(delimiter = '|', value = { "1|1", "120|120", "'  120\t'|120", "007|7", "86400|86400",
                "9223372036854775807|9223372036854775807", "0000000000000000000000000042|42" })
        void parsesWholeSeconds(String value, long seconds) {
            assertThat(RetryAfter.parse(value, CLOCK)).contains(Duration.ofSeconds(seconds));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "9223372036854775808", "99999999999999999999999999999999999999" })
        void saturatesEnormousValues(String value) {
            assertThat(RetryAfter.parse(value, CLOCK)).contains(SATURATED);
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "0", "000", "-1", "-9223372036854775808", "+5", "1.5", "1e3", "0x10", "5 s",
                "soon", "", "   ", "\t", "١٢٠" })
        void ignoresZeroNegativeAndGarbage(String value) {
            assertThat(RetryAfter.parse(value, CLOCK)).isEmpty();
        }

        @Test
        void ignoresAnAbsentHeader() {
            assertThat(RetryAfter.parse(null, CLOCK)).isEmpty();
        }

        @Test
        void refusesANullClock() {
            assertThatNullPointerException().isThrownBy(() -> RetryAfter.parse("1", null))
                .withMessage("clock must not be null");
        }
    }

    @Nested
    class HttpDate {

        @Test
        void parsesTheImfFixdate() {
            assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", CLOCK)).contains(Duration.ofSeconds(30));
        }

        @Test
        void parsesTheObsoleteRfc850Form() {
            assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", CLOCK)).contains(Duration.ofSeconds(30));
        }

        @Test
        void parsesTheObsoleteAsctimeFormWithASingleDigitDay() {
            assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", CLOCK)).contains(Duration.ofSeconds(30));
        }

        @Test
        void parsesTheObsoleteAsctimeFormWithATwoDigitDay() {
            assertThat(RetryAfter.parse("Wed Nov 16 08:49:07 1994", CLOCK)).contains(Duration.ofDays(10));
        }

        @Test
        void measuresFromTheClocksNow() {
            Clock later = Clock.offset(CLOCK, Duration.ofSeconds(20));
            assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", later)).contains(Duration.ofSeconds(10));
        }

        @Test
        void ignoresTheCurrentInstant() {
            assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:07 GMT", CLOCK)).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "Sun, 06 Nov 1994 08:49:06 GMT", "Saturday, 05-Nov-94 08:49:37 GMT",
                "Thu Jan  1 00:00:00 1970" })
        void ignoresAPastDate(String value) {
            assertThat(RetryAfter.parse(value, CLOCK)).isEmpty();
        }

        @Test
        void parsesADateFarInTheFuture() {
            assertThat(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", CLOCK))
                .contains(Duration.between(CLOCK.instant(), Instant.parse("9999-12-31T23:59:59Z")));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "Sun, 06 Nov 1994 08:49:37", "Sun, 32 Nov 1994 08:49:37 GMT",
                "Sun, 06 Nov 1994 25:49:37 GMT", "Mon, 06 Nov 1994 08:49:37 GMT", "06 Nov 1994 08:49:37 GMT junk",
                "1994-11-06T08:49:37Z" })
        void ignoresMalformedDates(String value) {
            assertThat(RetryAfter.parse(value, CLOCK)).isEmpty();
        }
    }

    @Nested
    class Millis {

        @ParameterizedTest(name = "\"{0}\" is {1} ns")
        @CsvSource(delimiter = '|', value = { "1500|1500000000", "1|1000000", "' 20 '|20000000",
                "20.5|20500000", "0.5|500000", "0.000001|1", "1.0000009|1000000", "007.250|7250000" })
        void parsesMilliseconds(String value, long nanos) {
            assertThat(RetryAfter.parseMillis(value)).contains(Duration.ofNanos(nanos));
        }

        @Test
        void parsesTheLargestLongOfMilliseconds() {
            assertThat(RetryAfter.parseMillis("9223372036854775807")).contains(Duration.ofMillis(Long.MAX_VALUE));
        }

        @Test
        void keepsTheFractionOfTheLargestLongOfMilliseconds() {
            assertThat(RetryAfter.parseMillis("9223372036854775807.999999"))
                .contains(Duration.ofMillis(Long.MAX_VALUE).plusNanos(999_999));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "9223372036854775808", "9223372036854775808.5",
                "99999999999999999999999999999999999999" })
        void saturatesEnormousValues(String value) {
            assertThat(RetryAfter.parseMillis(value)).contains(SATURATED);
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "0", "0.0", "0.0000001", "-1", "-0.5", "+1", "1.", ".5", "1.2.3", "1,5", "1e3",
                "NaN", "Infinity", "abc", "", "   " })
        void ignoresZeroNegativeAndGarbage(String value) {
            assertThat(RetryAfter.parseMillis(value)).isEmpty();
        }

        @Test
        void ignoresAnAbsentHeader() {
            assertThat(RetryAfter.parseMillis(null)).isEmpty();
        }
    }

    @Nested
    class ProtoDuration {

        @ParameterizedTest(name = "\"{0}\" is {1} ns")
        @CsvSource(delimiter = '|', value = { "36s|36000000000", "1.5s|1500000000", "1s|1000000000",
                "' 2s\t'|2000000000", "0.000000001s|1", "1.0000000009s|1000000000", "007.250s|7250000000",
                "0.1s|100000000" })
        void parsesSecondsWithAFraction(String value, long nanos) {
            assertThat(RetryAfter.parseProtoDuration(value)).contains(Duration.ofNanos(nanos));
        }

        @Test
        void parsesTheLargestLongOfSecondsWithAFraction() {
            assertThat(RetryAfter.parseProtoDuration("9223372036854775806.999999999s"))
                .contains(Duration.ofSeconds(Long.MAX_VALUE - 1, 999_999_999));
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "9223372036854775807s", "9223372036854775807.5s", "9223372036854775808s",
                "99999999999999999999999999999999999999.9s" })
        void saturatesEnormousValues(String value) {
            assertThat(RetryAfter.parseProtoDuration(value)).contains(SATURATED);
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "0s", "0.0s", "0.0000000001s", "-1s", "-0.5s", "+1s", "1", "36", "s", "1.s", ".5s",
                "1.2.3s", "1,5s", "1e3s", "1S", "1 s", "1ms", "1.5ss", "NaNs", "Infinitys", "abc", "", "   " })
        void ignoresZeroNegativeAndGarbage(String value) {
            assertThat(RetryAfter.parseProtoDuration(value)).isEmpty();
        }

        @Test
        void ignoresAnAbsentValue() {
            assertThat(RetryAfter.parseProtoDuration(null)).isEmpty();
        }
    }

    /**
     * {@code parseProtoDuration} over many random values, garbage, negative and enormous values among
     * them, against a model of the format in {@link BigDecimal}. The generator is seeded, so that a
     * failing case is reproduced by running the test again.
     */
    @Nested
    class FromRandomProtoDurations {

        static final long SEED = 0x5EED_6E31_1201L;

        static final int CASES = 500;

        @ParameterizedTest(name = "[{index}] \"{0}\"")
        @MethodSource("dev.inference.failure.RetryAfterTests#randomProtoDurations")
        void parsesAsTheFormatSaysWithoutThrowing(String value) {
            assertThat(RetryAfter.parseProtoDuration(value)).isEqualTo(protoDurationModel(value));
        }
    }

    @Nested
    class FromHeaders {

        private final Map<String, String> headers = new HashMap<>();

        /** The header names asked for, in order. */
        private final List<String> asked = new ArrayList<>();

        private Optional<Duration> read() {
            return RetryAfter.fromHeaders((name) -> {
                this.asked.add(name);
                return this.headers.get(name);
            }, CLOCK);
        }

        @Test
        void prefersRetryAfterMsToRetryAfter() {
            this.headers.put("retry-after-ms", "1500");
            this.headers.put("Retry-After", "3");

            assertThat(read()).contains(Duration.ofMillis(1500));
        }

        @Test
        void asksForRetryAfterOnlyWhenRetryAfterMsGivesNoDelay() {
            this.headers.put("retry-after-ms", "20");

            read();

            assertThat(this.asked).containsExactly("retry-after-ms");
        }

        @Test
        void readsRetryAfterWhenThereIsNoRetryAfterMs() {
            this.headers.put("Retry-After", "120");

            assertThat(read()).contains(Duration.ofSeconds(120));
            assertThat(this.asked).containsExactly("retry-after-ms", "Retry-After");
        }

        @Test
        void readsAnHttpDateOnTheClock() {
            this.headers.put("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT");

            assertThat(read()).contains(Duration.ofSeconds(30));
        }

        @ParameterizedTest(name = "retry-after-ms \"{0}\"")
        @ValueSource(strings = { "0", "-1", "1e3", "soon", "", "   " })
        void passesOverARetryAfterMsThatGivesNoDelay(String millis) {
            this.headers.put("retry-after-ms", millis);
            this.headers.put("Retry-After", "2");

            assertThat(read()).contains(Duration.ofSeconds(2));
        }

        @Test
        void isEmptyWithoutEitherHeader() {
            assertThat(read()).isEmpty();
        }

        @Test
        void isEmptyWhenNeitherHeaderGivesADelay() {
            this.headers.put("retry-after-ms", "soon");
            this.headers.put("Retry-After", "Sun, 06 Nov 1994 08:49:06 GMT");

            assertThat(read()).isEmpty();
        }

        @Test
        void refusesNullArguments() {
            assertThatNullPointerException().isThrownBy(() -> RetryAfter.fromHeaders(null, CLOCK))
                .withMessage("firstHeaderValue must not be null");
            assertThatNullPointerException().isThrownBy(() -> RetryAfter.fromHeaders((name) -> null, null))
                .withMessage("clock must not be null");
        }
    }

    /**
     * {@code fromHeaders} over many random pairs of header values, garbage and enormous values among
     * them. The generator is seeded, so that a failing case is reproduced by running the test again.
     */
    @Nested
    class FromRandomHeaders {

        private static final long SEED = 0x5EED_2026_1201L;

        private static final int CASES = 500;

        @ParameterizedTest(name = "[{index}] retry-after-ms \"{0}\", Retry-After \"{1}\"")
        @MethodSource("dev.inference.failure.RetryAfterTests#randomHeaders")
        void readsRetryAfterMsAndElseRetryAfterWithoutThrowing(String millis, String seconds) {
            Map<String, String> headers = new HashMap<>();
            headers.put("retry-after-ms", millis);
            headers.put("Retry-After", seconds);

            Optional<Duration> read = RetryAfter.fromHeaders(headers::get, CLOCK);

            Optional<Duration> fromMillis = RetryAfter.parseMillis(millis);
            assertThat(read).isEqualTo(fromMillis.isPresent() ? fromMillis : RetryAfter.parse(seconds, CLOCK));
        }
    }

    static Stream<Arguments> randomProtoDurations() {
        SplittableRandom random = new SplittableRandom(FromRandomProtoDurations.SEED);
        return Stream.generate(() -> Arguments.of(randomProtoDuration(random))).limit(FromRandomProtoDurations.CASES);
    }

    private static String randomProtoDuration(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> digits(random, random.nextInt(1, 25)) + "s";
            case 1 -> digits(random, random.nextInt(1, 8)) + "." + digits(random, random.nextInt(1, 12)) + "s";
            case 2 -> "-" + digits(random, random.nextInt(1, 5)) + "s";
            case 3 -> " " + digits(random, random.nextInt(1, 4)) + "s\t";
            case 4 -> digits(random, random.nextInt(1, 4)) + (random.nextBoolean() ? "" : "ms");
            default -> garbage(random);
        };
    }

    /**
     * What a protocol buffers {@code Duration} in JSON says, computed another way: the value is
     * {@code digits[.digits]s}, and its positive number of seconds, cut to nanoseconds and saturated.
     */
    private static Optional<Duration> protoDurationModel(String value) {
        String text = value.strip();
        if (!text.matches("[0-9]+(\\.[0-9]+)?s")) {
            return Optional.empty();
        }
        BigDecimal seconds = new BigDecimal(text.substring(0, text.length() - 1)).setScale(9, RoundingMode.DOWN);
        if (seconds.signum() == 0) {
            return Optional.empty();
        }
        if (seconds.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0) {
            return Optional.of(SATURATED);
        }
        BigDecimal whole = seconds.setScale(0, RoundingMode.DOWN);
        return Optional.of(Duration.ofSeconds(whole.longValueExact(),
                seconds.subtract(whole).movePointRight(9).longValueExact()));
    }

    static Stream<Arguments> randomHeaders() {
        SplittableRandom random = new SplittableRandom(FromRandomHeaders.SEED);
        return Stream.generate(() -> Arguments.of(randomHeaderValue(random), randomHeaderValue(random)))
            .limit(FromRandomHeaders.CASES);
    }

    private static String randomHeaderValue(SplittableRandom random) {
        return switch (random.nextInt(7)) {
            case 0 -> null;
            case 1 -> digits(random, random.nextInt(1, 25));
            case 2 -> digits(random, random.nextInt(1, 8)) + "." + digits(random, random.nextInt(1, 10));
            case 3 -> "-" + digits(random, random.nextInt(1, 5));
            case 4 -> " " + digits(random, random.nextInt(1, 4)) + "\t";
            case 5 -> DateTimeFormatter.RFC_1123_DATE_TIME
                .format(CLOCK.instant().plusSeconds(random.nextLong(-100_000, 100_000)).atOffset(ZoneOffset.UTC));
            default -> garbage(random);
        };
    }

    private static String digits(SplittableRandom random, int count) {
        StringBuilder digits = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            digits.append((char) ('0' + random.nextInt(10)));
        }
        return digits.toString();
    }

    private static String garbage(SplittableRandom random) {
        StringBuilder garbage = new StringBuilder();
        for (int i = random.nextInt(0, 12); i > 0; i--) {
            garbage.append((char) random.nextInt(' ', '~' + 1));
        }
        return garbage.toString();
    }
}
