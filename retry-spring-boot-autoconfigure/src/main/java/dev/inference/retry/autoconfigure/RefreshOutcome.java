package dev.inference.retry.autoconfigure;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How one refresh of the {@code inference.retry} configuration ended ({@link dev.inference.retry.autoconfigure.refresh.RetryRefresh}).
 *
 * @param at when it ended
 * @param applied whether it was applied; {@code false}: refused, nothing of it applied
 * @param reason why it was refused, in the words of the startup report (the property, the value and
 *     the rule), or {@code null} when it was applied
 */
public record RefreshOutcome(Instant at, boolean applied, @Nullable String reason) {

    /**
     * Checks the outcome.
     *
     * @param at when it ended
     * @param applied whether it was applied
     * @param reason why it was refused, or {@code null} when it was applied
     * @throws NullPointerException if {@code at} is {@code null}, or {@code reason} is for a refused one
     */
    public RefreshOutcome {
        Objects.requireNonNull(at, "at must not be null");
        if (!applied) {
            Objects.requireNonNull(reason, "reason must not be null for a refused refresh");
        }
    }

    /**
     * Returns the outcome as the {@code result} tag of {@code inference.retry.refresh} names it.
     *
     * @return {@code applied} or {@code rejected}
     */
    public String result() {
        return this.applied ? "applied" : "rejected";
    }

    /**
     * Returns why the refresh was refused.
     *
     * @return the reason, or empty when it was applied
     */
    public Optional<String> refusal() {
        return Optional.ofNullable(this.reason);
    }
}
