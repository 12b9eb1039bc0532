package dev.inference.retry;

import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Decides which failures are transient, and so worth another attempt: the one place that says so.
 *
 * <p>A failure is retryable when its cause chain (the failure, its cause, ...) holds no cancellation
 * ({@link CancellationException}, {@link InterruptedException}), {@link DeadlineExceededException},
 * {@link ShutdownException}, {@link QuotaExceededException} or {@link ExhaustedException}, and its
 * first typed failure is a {@link NetworkException}, or an {@link HttpStatusException} with status
 * 408, 429 or 500 to 599 whose provider did not {@linkplain HttpStatusException#retryRefused() refuse
 * a retry}. Everything else, {@code null} included, is permanent. The first typed failure also
 * supplies the provider's {@code Retry-After}.
 *
 * <p>Traps: a negative case anywhere in the chain wins, so a network error caused by a cancellation
 * is not retried, an SDK's rate-limit exception for a used-up quota is not waited for, and nested
 * decorators do not multiply attempts. An instance is one failure's classification, {@linkplain
 * #of(Throwable) made} in one walk of its chain; the retry loop and the metrics' {@code error} tag
 * read the same instance, so they cannot disagree.
 */
public final class Classification {

    private final Kind kind;

    private final @Nullable Throwable decidingCause;

    private Classification(Kind kind, @Nullable Throwable decidingCause) {
        this.kind = kind;
        this.decidingCause = decidingCause;
    }

    /**
     * Tells whether a failure is transient.
     *
     * @param failure the failure of an attempt, or {@code null}
     * @return {@code true} if another attempt may succeed
     */
    public static boolean isRetryable(@Nullable Throwable failure) {
        return of(failure).isRetryable();
    }

    /**
     * Returns the delay the provider asked for with a retryable failure.
     *
     * @param failure the failure of an attempt, or {@code null}
     * @return the {@code Retry-After} of the failure's first typed failure, or empty when the
     *     failure is not retryable or the provider gave no delay
     */
    public static Optional<Duration> retryAfter(@Nullable Throwable failure) {
        return of(failure).retryAfter();
    }

    /**
     * Classifies a failure, walking its cause chain once (a chain that loops back on itself is
     * walked up to the loop).
     *
     * @param failure the failure of an attempt, or {@code null}
     * @return its classification; {@link Kind#UNTYPED} with no deciding cause for {@code null}
     */
    public static Classification of(@Nullable Throwable failure) {
        Throwable typed = null;
        // A cause chain can be a cycle: a second pointer at half speed meets the walker inside it.
        Throwable slow = failure;
        int step = 0;
        Throwable current = failure;
        while (current != null) {
            Kind negative = negativeKind(current);
            if (negative != null) {
                return new Classification(negative, current);
            }
            if (typed == null && (current instanceof NetworkException || current instanceof HttpStatusException)) {
                typed = current;
            }
            Throwable next = current.getCause();
            if ((++step & 1) == 0 && slow != null) {
                slow = slow.getCause();
            }
            if (next == slow) {
                break;
            }
            current = next;
        }
        if (typed == null) {
            return new Classification(Kind.UNTYPED, failure);
        }
        return new Classification((typed instanceof NetworkException) ? Kind.NETWORK : Kind.HTTP_STATUS, typed);
    }

    private static @Nullable Kind negativeKind(Throwable failure) {
        if (failure instanceof CancellationException || failure instanceof InterruptedException) {
            return Kind.CANCELLED;
        }
        if (failure instanceof DeadlineExceededException) {
            return Kind.DEADLINE;
        }
        if (failure instanceof ShutdownException) {
            return Kind.SHUTDOWN;
        }
        if (failure instanceof QuotaExceededException) {
            return Kind.QUOTA;
        }
        if (failure instanceof ExhaustedException) {
            return Kind.EXHAUSTED;
        }
        return null;
    }

    /**
     * Returns what decided the classification.
     *
     * @return the kind
     */
    public Kind kind() {
        return this.kind;
    }

    /**
     * Returns the link of the cause chain that decided the classification: the first cancellation,
     * passed deadline, shutdown, used-up quota or {@link ExhaustedException} in the chain; failing those, the first typed
     * failure; failing that, the failure itself.
     *
     * @return the deciding link, or empty for the classification of {@code null}
     */
    public Optional<Throwable> decidingCause() {
        return Optional.ofNullable(this.decidingCause);
    }

    /**
     * Tells whether another attempt may succeed: the deciding cause is a {@link NetworkException},
     * or an {@link HttpStatusException} with status 408, 429 or 500 to 599 whose provider did not
     * refuse a retry.
     *
     * @return {@code true} when the failure is transient
     */
    public boolean isRetryable() {
        if (this.kind == Kind.NETWORK) {
            return true;
        }
        if (this.kind == Kind.HTTP_STATUS) {
            HttpStatusException status = (HttpStatusException) Objects.requireNonNull(this.decidingCause);
            int code = status.status();
            // The provider's word (x-should-retry: false) overrides the status.
            return !status.retryRefused() && (code == 408 || code == 429 || (code >= 500 && code <= 599));
        }
        return false;
    }

    /**
     * Returns the delay the provider asked for, when the failure is retryable.
     *
     * @return the deciding {@link HttpStatusException}'s {@code Retry-After}, or empty
     */
    public Optional<Duration> retryAfter() {
        return (isRetryable() && this.decidingCause instanceof HttpStatusException status) ? status.retryAfter()
                : Optional.empty();
    }

    /**
     * Returns how long the failed response's rate-limit headers say the provider account's limit
     * stays exhausted, retryable or not.
     *
     * @return the deciding {@link HttpStatusException}'s {@linkplain HttpStatusException#rateLimitedFor()
     *     rate limit}, or empty
     */
    public Optional<Duration> rateLimitedFor() {
        return (this.kind == Kind.HTTP_STATUS && this.decidingCause instanceof HttpStatusException status)
                ? status.rateLimitedFor() : Optional.empty();
    }

    @Override
    public String toString() {
        return "Classification[" + this.kind + (isRetryable() ? ", retryable" : ", permanent") + "]";
    }

    /**
     * What decided a classification, in the order the cause chain is read.
     */
    public enum Kind {

        /** A {@link CancellationException} or {@link InterruptedException} in the chain: permanent. */
        CANCELLED,

        /** A {@link DeadlineExceededException} in the chain: permanent. */
        DEADLINE,

        /** A {@link ShutdownException} in the chain: permanent. */
        SHUTDOWN,

        /**
         * A {@link QuotaExceededException} in the chain: permanent, and no cool-down, since no wait
         * helps.
         */
        QUOTA,

        /** An {@link ExhaustedException} in the chain, from a nested decorator: permanent. */
        EXHAUSTED,

        /** The first typed failure is a {@link NetworkException}: retryable. */
        NETWORK,

        /** The first typed failure is an {@link HttpStatusException}: retryable for 408, 429, 5xx. */
        HTTP_STATUS,

        /** No typed failure and no negative case in the chain: permanent. */
        UNTYPED
    }
}
