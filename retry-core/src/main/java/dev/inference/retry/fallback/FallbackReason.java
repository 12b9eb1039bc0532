package dev.inference.retry.fallback;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.retry.CoolingDownException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryBudgetExhaustedException;
import java.util.Locale;
import java.util.Optional;

/**
 * Why a fallback chain left one of its members for the next: the {@code reason} tag of the
 * {@code inference.retry.fallbacks} meter. {@link #of(Throwable)} says which failures fall over;
 * every other failure ends the call as it is (the rules are {@link FallbackChain}'s).
 */
public enum FallbackReason {

    /** The member's retryable failures ran out ({@link ExhaustedException}). */
    EXHAUSTED,

    /** The member's retry budget refused a retry ({@link RetryBudgetExhaustedException}). */
    BUDGET,

    /** The member's provider account has no quota left ({@link QuotaExceededException}). */
    QUOTA,

    /** The member's account or model was refused: HTTP 401, 403 or 404. */
    ACCOUNT,

    /** The member came to wait for a {@code Retry-After} or a cool-down ({@link CoolingDownException}). */
    COOLING,

    /** The member was not called: it was cooling down, or held by the chain's {@code skip-after} rule. */
    SKIPPED;

    /**
     * Returns the reason as a meter tag: its name in lower case.
     *
     * @return the tag value, such as {@code "exhausted"}
     */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Returns why a member's typed failure makes a chain fall over, if it does: a
     * {@link CoolingDownException}, an {@link ExhaustedException} (a {@link RetryBudgetExhaustedException}
     * as {@link #BUDGET}), a {@link QuotaExceededException}, or an {@link HttpStatusException} with
     * status 401, 403 or 404. Only the failure itself is looked at, not its causes: an exhaustion's
     * cause is what ran out, and a cancellation or deadline carries no other failure that could count.
     *
     * @param failure the member's failure, typed as its provider integration types it
     * @return the reason, or empty when the failure ends the call as it is
     */
    public static Optional<FallbackReason> of(Throwable failure) {
        if (failure instanceof CoolingDownException) {
            return Optional.of(COOLING);
        }
        if (failure instanceof RetryBudgetExhaustedException) {
            return Optional.of(BUDGET);
        }
        if (failure instanceof ExhaustedException) {
            return Optional.of(EXHAUSTED);
        }
        if (failure instanceof QuotaExceededException) {
            return Optional.of(QUOTA);
        }
        if (failure instanceof HttpStatusException status
                && (status.status() == 401 || status.status() == 403 || status.status() == 404)) {
            return Optional.of(ACCOUNT);
        }
        return Optional.empty();
    }
}
