package dev.inference.failure;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Parses the delays that providers send with a 429 or 503, for transports that build
 * {@link HttpStatusException}s: {@link #fromHeaders} reads a response's headers as the providers
 * mean them, {@link #parse} and {@link #parseMillis} one header's value, and
 * {@link #parseProtoDuration} a delay that an error body gives as a protocol buffers
 * {@code Duration} (the {@code retryDelay} of Google's {@code google.rpc.RetryInfo}), which counts as
 * a {@code Retry-After}.
 *
 * <p>All four are total: garbage, zero, negative values and dates in the past give an empty
 * result, and enormous values saturate to the largest {@link Duration}; none ever throws for any
 * value. Capping the delay to something sensible is the retry schedule's job, not the parser's.
 */
public final class RetryAfter {

    /** The header in which OpenAI and Anthropic give their wait in milliseconds, read first. */
    private static final String MILLIS_HEADER = "retry-after-ms";

    private static final String HEADER = "Retry-After";

    /** The largest whole number of seconds a {@link Duration} holds. */
    static final Duration SATURATED = Duration.ofSeconds(Long.MAX_VALUE);

    // RFC 9110 section 5.6.7: recipients accept the IMF-fixdate and the two obsolete forms.
    private static final List<DateTimeFormatter> HTTP_DATES = List.of(
            DateTimeFormatter.RFC_1123_DATE_TIME,
            new DateTimeFormatterBuilder().appendPattern("EEEE, dd-MMM-")
                    .appendValueReduced(ChronoField.YEAR, 2, 2, 1970)
                    .appendPattern(" HH:mm:ss 'GMT'").toFormatter(Locale.US).withZone(ZoneOffset.UTC),
            new DateTimeFormatterBuilder().appendPattern("EEE MMM ").padNext(2).appendValue(ChronoField.DAY_OF_MONTH)
                    .appendPattern(" HH:mm:ss yyyy").toFormatter(Locale.US).withZone(ZoneOffset.UTC));

    private RetryAfter() {
    }

    /**
     * Reads the delay a provider asked for from a response's headers: {@code retry-after-ms} first
     * (as {@link #parseMillis} parses it), then {@code Retry-After} (as {@link #parse} does). A
     * header that is absent, or whose value gives no delay (garbage, zero, negative, a past date),
     * is passed over for the next.
     *
     * @param firstHeaderValue gives the first value of the response's header of a name, or
     *     {@code null} when the response has none; HTTP header names are case-insensitive, so it
     *     should look them up that way (as {@code java.net.http.HttpHeaders#firstValue} does)
     * @param clock the clock that says what "now" is for an HTTP-date
     * @return the positive delay, or empty when neither header gives one
     * @throws NullPointerException if an argument is {@code null}
     */
    public static Optional<Duration> fromHeaders(Function<String, @Nullable String> firstHeaderValue, Clock clock) {
        Objects.requireNonNull(firstHeaderValue, "firstHeaderValue must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
        Optional<Duration> millis = parseMillis(firstHeaderValue.apply(MILLIS_HEADER));
        return millis.isPresent() ? millis : parse(firstHeaderValue.apply(HEADER), clock);
    }

    /**
     * Parses an HTTP {@code Retry-After} header value in either of its forms: delta-seconds
     * ({@code "120"}) or an HTTP-date ({@code "Wed, 21 Oct 2026 07:28:00 GMT"}), in which case the
     * delay is the time from the clock's now until that date.
     *
     * @param headerValue the header's value, or {@code null} when the header is absent; surrounding
     *     white space is ignored
     * @param clock the clock that says what "now" is for an HTTP-date
     * @return the positive delay, or empty when the value is absent, garbage, zero, negative or a
     *     date that is not in the future
     * @throws NullPointerException if {@code clock} is {@code null}
     */
    public static Optional<Duration> parse(@Nullable String headerValue, Clock clock) {
        Objects.requireNonNull(clock, "clock must not be null");
        if (headerValue == null) {
            return Optional.empty();
        }
        String value = headerValue.strip();
        if (isDigits(value, 0, value.length())) {
            return positive(seconds(value));
        }
        Instant date = parseHttpDate(value);
        return (date != null) ? positive(Duration.between(clock.instant(), date)) : Optional.empty();
    }

    /**
     * Parses a {@code retry-after-ms} header value: a non-negative number of milliseconds, which
     * may have a fraction ({@code "1500"}, {@code "20.5"}).
     *
     * @param headerValue the header's value, or {@code null} when the header is absent; surrounding
     *     white space is ignored
     * @return the positive delay, or empty when the value is absent, garbage, zero or negative
     */
    public static Optional<Duration> parseMillis(@Nullable String headerValue) {
        return (headerValue != null) ? decimal(headerValue.strip(), RetryAfter::millis, 6) : Optional.empty();
    }

    /**
     * Parses a delay written as a protocol buffers {@code Duration} in its JSON form: a non-negative
     * number of seconds, which may have a fraction, followed by {@code s} ({@code "36s"},
     * {@code "1.5s"}), as Google's APIs send it in the {@code retryDelay} of a
     * {@code google.rpc.RetryInfo} in an error body. A fraction finer than nanoseconds is cut off.
     *
     * @param value the value, or {@code null} when the body gives none; surrounding white space is
     *     ignored
     * @return the positive delay, or empty when the value is absent, garbage, zero or negative
     */
    public static Optional<Duration> parseProtoDuration(@Nullable String value) {
        if (value == null) {
            return Optional.empty();
        }
        String text = value.strip();
        return text.endsWith("s") ? decimal(text.substring(0, text.length() - 1), RetryAfter::seconds, 9)
                : Optional.empty();
    }

    /**
     * Parses digits with an optional fraction ({@code "20"}, {@code "20.5"}) of a unit whose fraction
     * is {@code fractionDigits} digits of nanoseconds: 6 for milliseconds, 9 for seconds.
     */
    private static Optional<Duration> decimal(String value, Function<String, Duration> whole, int fractionDigits) {
        int dot = value.indexOf('.');
        int end = (dot >= 0) ? dot : value.length();
        if (!isDigits(value, 0, end) || (dot >= 0 && !isDigits(value, dot + 1, value.length()))) {
            return Optional.empty();
        }
        Duration units = whole.apply(value.substring(0, end));
        if (dot < 0 || units.equals(SATURATED)) {
            return positive(units);
        }
        // Nanoseconds are the finest a Duration holds: keep that many digits of the fraction.
        String fraction = (value.substring(dot + 1) + "0".repeat(fractionDigits)).substring(0, fractionDigits);
        return positive(units.plusNanos(Long.parseLong(fraction)));
    }

    private static Duration seconds(String digits) {
        return fitsInLong(digits) ? Duration.ofSeconds(Long.parseLong(digits)) : SATURATED;
    }

    private static Duration millis(String digits) {
        return fitsInLong(digits) ? Duration.ofMillis(Long.parseLong(digits)) : SATURATED;
    }

    private static boolean fitsInLong(String digits) {
        String significant = stripLeadingZeros(digits);
        return significant.length() < 19
                || (significant.length() == 19 && significant.compareTo(Long.toString(Long.MAX_VALUE)) <= 0);
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() - 1 && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }

    private static boolean isDigits(String value, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static @Nullable Instant parseHttpDate(String value) {
        for (DateTimeFormatter format : HTTP_DATES) {
            try {
                return Instant.from(format.parse(value));
            }
            catch (DateTimeException notThisForm) {
                // try the next form
            }
        }
        return null;
    }

    private static Optional<Duration> positive(Duration delay) {
        return (delay.isNegative() || delay.isZero()) ? Optional.empty() : Optional.of(delay);
    }
}
