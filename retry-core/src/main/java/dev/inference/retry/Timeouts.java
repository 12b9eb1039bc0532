package dev.inference.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The immutable timeouts a retrier acts on, each off unless set: how long one attempt of an
 * {@code invoke} may take, how long one attempt of a {@code stream} may take until its content
 * begins, and how long an established stream may stay silent between two events that are not
 * keep-alives.
 *
 * <p>An attempt that runs past the first two is abandoned and fails with a retryable
 * {@link dev.inference.failure.AttemptTimeoutException}; a stream silent past the third ends with a
 * {@link dev.inference.failure.StreamStalledException}, never retried. The caller's own deadline and
 * cancellation always win over an attempt's timeout. Every value set must be a positive duration, so
 * a timeout is either off or real: there is no zero that means "none".
 *
 * <p>Compared by value, so that two beans' settings can be told equal.
 */
public final class Timeouts {

    private static final Timeouts NONE = new Timeouts(null, null, null);

    private final @Nullable Duration attempt;

    private final @Nullable Duration firstToken;

    private final @Nullable Duration streamIdle;

    private Timeouts(@Nullable Duration attempt, @Nullable Duration firstToken, @Nullable Duration streamIdle) {
        this.attempt = attempt;
        this.firstToken = firstToken;
        this.streamIdle = streamIdle;
    }

    /**
     * Returns the timeouts with every one off.
     *
     * @return the timeouts that bound nothing
     */
    public static Timeouts none() {
        return NONE;
    }

    /**
     * Creates timeouts from values read from a configuration, each {@code null} when not set.
     *
     * @param attempt the longest time one attempt of an {@code invoke} may take, or {@code null}
     * @param firstToken the longest time one attempt of a {@code stream} may take until its content
     *     begins, or {@code null}
     * @param streamIdle the longest silence between two events of an established stream, or
     *     {@code null}
     * @param names the name of each field in the configuration, such as a property name
     * @return the timeouts
     * @throws ConfigException naming the first value set that is not positive (by {@code names}),
     *     its value and the rule
     * @throws NullPointerException if {@code names} is {@code null} or returns {@code null}
     */
    public static Timeouts of(@Nullable Duration attempt, @Nullable Duration firstToken,
            @Nullable Duration streamIdle, Function<Field, String> names) {
        Objects.requireNonNull(names, "names must not be null");
        requirePositive(attempt, Field.ATTEMPT, names);
        requirePositive(firstToken, Field.FIRST_TOKEN, names);
        requirePositive(streamIdle, Field.STREAM_IDLE, names);
        return (attempt == null && firstToken == null && streamIdle == null) ? NONE
                : new Timeouts(attempt, firstToken, streamIdle);
    }

    /**
     * Returns a copy with the attempt timeout set.
     *
     * @param timeout the longest time one attempt of an {@code invoke} may take
     * @return the copy
     * @throws ConfigException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is {@code null}
     */
    public Timeouts withAttempt(Duration timeout) {
        return of(Objects.requireNonNull(timeout, "timeout must not be null"), this.firstToken, this.streamIdle,
                Field::component);
    }

    /**
     * Returns a copy with the first-token timeout set.
     *
     * @param timeout the longest time one attempt of a {@code stream} may take until its content
     *     begins
     * @return the copy
     * @throws ConfigException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is {@code null}
     */
    public Timeouts withFirstToken(Duration timeout) {
        return of(this.attempt, Objects.requireNonNull(timeout, "timeout must not be null"), this.streamIdle,
                Field::component);
    }

    /**
     * Returns a copy with the stream idle timeout set.
     *
     * @param timeout the longest silence between two events of an established stream
     * @return the copy
     * @throws ConfigException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is {@code null}
     */
    public Timeouts withStreamIdle(Duration timeout) {
        return of(this.attempt, this.firstToken, Objects.requireNonNull(timeout, "timeout must not be null"),
                Field::component);
    }

    /**
     * Returns how long one attempt of an {@code invoke} may take, from sending its request to its
     * complete response.
     *
     * @return the attempt timeout, or empty when off
     */
    public Optional<Duration> attempt() {
        return Optional.ofNullable(this.attempt);
    }

    /**
     * Returns how long one attempt of a {@code stream} may take until the stream is established, that
     * is until its content has begun.
     *
     * @return the first-token timeout, or empty when off
     */
    public Optional<Duration> firstToken() {
        return Optional.ofNullable(this.firstToken);
    }

    /**
     * Returns the longest silence an established stream may keep between two events that are not
     * keep-alives.
     *
     * @return the stream idle timeout, or empty when off
     */
    public Optional<Duration> streamIdle() {
        return Optional.ofNullable(this.streamIdle);
    }

    /**
     * Tells whether every timeout is off.
     *
     * @return {@code true} when no timeout is set
     */
    public boolean isNone() {
        return this == NONE;
    }

    private static void requirePositive(@Nullable Duration value, Field field, Function<Field, String> names) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new ConfigException(Objects.requireNonNull(names.apply(field), () -> "names returned null for " + field),
                    value, "must be a positive duration, or left unset to turn this timeout off");
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return (other instanceof Timeouts that) && Objects.equals(this.attempt, that.attempt)
                && Objects.equals(this.firstToken, that.firstToken) && Objects.equals(this.streamIdle, that.streamIdle);
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.attempt, this.firstToken, this.streamIdle);
    }

    @Override
    public String toString() {
        return "Timeouts[attempt=" + describe(this.attempt) + ", firstToken=" + describe(this.firstToken)
                + ", streamIdle=" + describe(this.streamIdle) + "]";
    }

    private static String describe(@Nullable Duration timeout) {
        return (timeout != null) ? timeout.toString() : "off";
    }

    /**
     * The timeouts, as configurations map their own names onto them.
     */
    public enum Field {

        /** {@link Timeouts#attempt()}. */
        ATTEMPT("attempt"),

        /** {@link Timeouts#firstToken()}. */
        FIRST_TOKEN("firstToken"),

        /** {@link Timeouts#streamIdle()}. */
        STREAM_IDLE("streamIdle");

        private final String component;

        Field(String component) {
            this.component = component;
        }

        /**
         * Returns the name of the value in this class.
         *
         * @return the name, such as {@code "firstToken"}
         */
        public String component() {
            return this.component;
        }
    }
}
