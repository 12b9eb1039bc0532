package dev.inference.retry.autoconfigure.settings;

import dev.inference.retry.Policy;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The four policy fields and the three timeouts, as bound at the top level of {@code inference.retry}
 * and under each {@code inference.retry.clients.<bean-name>}. Every field is {@code null} until set:
 * there are no defaults, and {@link ClientPolicyResolver} refuses a bean whose policy field is set
 * nowhere; a timeout set nowhere is off (SPEC §11), merged field by field in {@link BeanRetrySettings}.
 */
public abstract class RetryPolicyProperties {

    /**
     * The property name of each policy field, relative to {@code inference.retry.} or to a client's
     * entry: the one list of these names. Unmodifiable.
     */
    public static final Map<Policy.Field, String> PROPERTY_NAMES = propertyNames();

    /**
     * Number of retries that wait stable-delay before the wait starts doubling.
     */
    private @Nullable Integer stableRetries;

    /**
     * Wait after each of the first stable-retries failed attempts, and the base of the doubling
     * waits after them.
     */
    private @Nullable Duration stableDelay;

    /**
     * Maximum number of attempts per call, the first one included.
     */
    private @Nullable Integer maxAttempts;

    /**
     * Maximum wait between two attempts, before jitter.
     */
    private @Nullable Duration maxDelay;

    /**
     * Longest one attempt of an invoke (a Spring AI call, an embedding sub-batch) may take, from
     * sending the request to the complete response; past it the attempt is abandoned and retried
     * with the backoff schedule. Off unless set.
     */
    private @Nullable Duration attemptTimeout;

    /**
     * Longest one attempt of a stream may take to be established, that is until its content has
     * begun (keep-alives and preamble do not count); past it the attempt is abandoned and retried.
     * Off unless set. Reasoning models need a long one.
     */
    private @Nullable Duration firstTokenTimeout;

    /**
     * Longest gap between two events of an established stream (keep-alives do not count); past it
     * the stream ends with StreamStalledException, never retried. Off unless set.
     */
    private @Nullable Duration streamIdleTimeout;

    /**
     * Returns the number of stable retries.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Integer getStableRetries() {
        return this.stableRetries;
    }

    /**
     * Sets the number of stable retries.
     *
     * @param stableRetries the value, or {@code null} to leave it unset here
     */
    public void setStableRetries(@Nullable Integer stableRetries) {
        this.stableRetries = stableRetries;
    }

    /**
     * Returns the stable delay.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Duration getStableDelay() {
        return this.stableDelay;
    }

    /**
     * Sets the stable delay.
     *
     * @param stableDelay the value, or {@code null} to leave it unset here
     */
    public void setStableDelay(@Nullable Duration stableDelay) {
        this.stableDelay = stableDelay;
    }

    /**
     * Returns the maximum number of attempts.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Integer getMaxAttempts() {
        return this.maxAttempts;
    }

    /**
     * Sets the maximum number of attempts.
     *
     * @param maxAttempts the value, or {@code null} to leave it unset here
     */
    public void setMaxAttempts(@Nullable Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /**
     * Returns the maximum delay.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Duration getMaxDelay() {
        return this.maxDelay;
    }

    /**
     * Sets the maximum delay.
     *
     * @param maxDelay the value, or {@code null} to leave it unset here
     */
    public void setMaxDelay(@Nullable Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    /**
     * Returns the attempt timeout.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Duration getAttemptTimeout() {
        return this.attemptTimeout;
    }

    /**
     * Sets the attempt timeout.
     *
     * @param attemptTimeout the value, or {@code null} to leave it unset here
     */
    public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
        this.attemptTimeout = attemptTimeout;
    }

    /**
     * Returns the first-token timeout.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Duration getFirstTokenTimeout() {
        return this.firstTokenTimeout;
    }

    /**
     * Sets the first-token timeout.
     *
     * @param firstTokenTimeout the value, or {@code null} to leave it unset here
     */
    public void setFirstTokenTimeout(@Nullable Duration firstTokenTimeout) {
        this.firstTokenTimeout = firstTokenTimeout;
    }

    /**
     * Returns the stream idle timeout.
     *
     * @return the value, or {@code null} when not set here
     */
    public @Nullable Duration getStreamIdleTimeout() {
        return this.streamIdleTimeout;
    }

    /**
     * Sets the stream idle timeout.
     *
     * @param streamIdleTimeout the value, or {@code null} to leave it unset here
     */
    public void setStreamIdleTimeout(@Nullable Duration streamIdleTimeout) {
        this.streamIdleTimeout = streamIdleTimeout;
    }

    private static Map<Policy.Field, String> propertyNames() {
        Map<Policy.Field, String> names = new EnumMap<>(Policy.Field.class);
        names.put(Policy.Field.STABLE_RETRIES, "stable-retries");
        names.put(Policy.Field.STABLE_DELAY, "stable-delay");
        names.put(Policy.Field.MAX_ATTEMPTS, "max-attempts");
        names.put(Policy.Field.MAX_DELAY, "max-delay");
        return Collections.unmodifiableMap(names);
    }
}
