package dev.inference.retry.autoconfigure;

import dev.inference.failure.AttemptTimeoutException;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Classification;
import dev.inference.retry.Operation;
import dev.inference.retry.cooldown.CooldownReason;

/**
 * The tag values that the starter's meters and observations share, so that a dashboard can join
 * them: the {@code operation}, {@code outcome} and {@code error} of an attempt, and the
 * {@code reason} of a cool-down.
 */
public final class RetryTags {

    /** The {@code error} tag of an attempt that succeeded. */
    public static final String NO_ERROR = "none";

    private RetryTags() {
    }

    /**
     * Returns the {@code operation} tag.
     *
     * @param operation the kind of call
     * @return {@code invoke} or {@code stream}
     */
    public static String operation(Operation operation) {
        return (operation == Operation.INVOKE) ? "invoke" : "stream";
    }

    /**
     * Returns the {@code outcome} tag of an attempt.
     *
     * @param event the attempt
     * @return {@code success}, {@code retryable_failure} or {@code failure}
     */
    public static String outcome(AttemptEvent event) {
        if (event.succeeded()) {
            return "success";
        }
        return event.retryable() ? "retryable_failure" : "failure";
    }

    /**
     * Returns the {@code error} tag of an attempt.
     *
     * @param event the attempt
     * @return {@value #NO_ERROR} on success, or the {@linkplain #error(Throwable) error} of its failure
     */
    public static String error(AttemptEvent event) {
        Throwable failure = event.failure();
        return (failure != null) ? error(failure) : NO_ERROR;
    }

    /**
     * Returns the {@code error} tag of a failure, read from the {@link Classification} of its cause
     * chain, the one walk that also decides whether it is retried: {@code cancelled},
     * {@code deadline}, {@code shutdown} or {@code quota} (a used-up quota) for the first such case in
     * the chain, the simple class
     * name of an {@code ExhaustedException} found there; failing those, {@code attempt_timeout},
     * {@code network} or {@code http_<status>} for the first typed failure; failing that, the failure's own simple class
     * name.
     *
     * @param failure the failure
     * @return the tag value
     */
    public static String error(Throwable failure) {
        Classification classification = Classification.of(failure);
        Throwable deciding = classification.decidingCause().orElse(failure);
        return switch (classification.kind()) {
            case CANCELLED -> "cancelled";
            case DEADLINE -> "deadline";
            case SHUTDOWN -> "shutdown";
            case QUOTA -> "quota";
            case NETWORK -> (deciding instanceof AttemptTimeoutException) ? "attempt_timeout" : "network";
            case HTTP_STATUS -> "http_" + ((HttpStatusException) deciding).status();
            case EXHAUSTED, UNTYPED -> className(deciding);
        };
    }

    /**
     * Returns the {@code reason} tag of a cool-down.
     *
     * @param reason why the cool-down was set
     * @return {@code retry_after} or {@code rate_limit}
     */
    public static String reason(CooldownReason reason) {
        return (reason == CooldownReason.RETRY_AFTER) ? "retry_after" : "rate_limit";
    }

    private static String className(Throwable failure) {
        String simple = failure.getClass().getSimpleName();
        return simple.isEmpty() ? failure.getClass().getName() : simple;
    }
}
