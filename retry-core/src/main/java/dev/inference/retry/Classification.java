package dev.inference.retry;

import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Decides which failures are transient, and so worth another attempt.
 *
 * <p>A failure is retryable when its cause chain (the failure, its cause, the cause's cause, ...)
 * <ul>
 * <li>holds no cancellation ({@link CancellationException}, {@link InterruptedException}), no
 * {@link DeadlineExceededException} and no {@link ExhaustedException}: any of these anywhere in the
 * chain makes the failure permanent, so that a network error caused by a cancellation is not
 * retried, and nested decorators do not multiply attempts;</li>
 * <li>and its first typed failure is a {@link NetworkException}, or an {@link HttpStatusException}
 * with status 408, 429 or 500 to 599.</li>
 * </ul>
 * Everything else, {@code null} included, is permanent. The first typed failure also supplies the
 * provider's {@code Retry-After}.
 */
public final class Classification {

    private Classification() {
    }

    /**
     * Tells whether a failure is transient.
     *
     * @param failure the failure of an attempt, or {@code null}
     * @return {@code true} if another attempt may succeed
     */
    public static boolean isRetryable(@Nullable Throwable failure) {
        return decidingFailure(failure) != null;
    }

    /**
     * Returns the delay the provider asked for with a retryable failure.
     *
     * @param failure the failure of an attempt, or {@code null}
     * @return the {@code Retry-After} of the failure's first typed failure, or empty when the
     *     failure is not retryable or the provider gave no delay
     */
    public static Optional<Duration> retryAfter(@Nullable Throwable failure) {
        return retryAfterOf(decidingFailure(failure));
    }

    static Optional<Duration> retryAfterOf(@Nullable RuntimeException decidingFailure) {
        return (decidingFailure instanceof HttpStatusException status) ? status.retryAfter() : Optional.empty();
    }

    /**
     * Walks the cause chain once: returns the first typed failure when it is retryable and no
     * negative case stands anywhere in the chain, otherwise {@code null}.
     */
    static @Nullable RuntimeException decidingFailure(@Nullable Throwable failure) {
        RuntimeException typed = null;
        boolean typedIsRetryable = false;
        // A cause chain can be a cycle: a second pointer at half speed meets the walker inside it.
        Throwable slow = failure;
        int step = 0;
        Throwable current = failure;
        while (current != null) {
            if (isNegative(current)) {
                return null;
            }
            if (typed == null && (current instanceof NetworkException || current instanceof HttpStatusException)) {
                typed = (RuntimeException) current;
                typedIsRetryable = isRetryableType(typed);
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
        return typedIsRetryable ? typed : null;
    }

    private static boolean isNegative(Throwable failure) {
        return failure instanceof CancellationException || failure instanceof InterruptedException
                || failure instanceof DeadlineExceededException || failure instanceof ExhaustedException;
    }

    private static boolean isRetryableType(RuntimeException typed) {
        if (typed instanceof HttpStatusException status) {
            int code = status.status();
            return code == 408 || code == 429 || (code >= 500 && code <= 599);
        }
        return true;
    }
}
