package dev.inference.retry.springai.fallback;

import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.retry.CoolingDownException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.fallback.FallbackReason;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.UnaryOperator;

/**
 * Says why a Spring AI chat model's failure makes a chain fall over, from the typed failure that the
 * provider integration which retried the model put in the failure's cause chain (the same typing that
 * gives the meters' {@code error} tag): the SDK's exception a caller gets carries an
 * {@link HttpStatusException} or a {@link QuotaExceededException} beneath it, and an exhaustion is an
 * {@link ExhaustedException} on top; a permanent failure reaches the caller as its client threw it, and
 * the integration's typing (its failure translators) tells what it was. A cancellation, a deadline or a shutdown anywhere in the chain
 * ends the call as it is.
 */
final class ChatModelFailures {

    /** How deep a cause chain is read: far beyond any a client library builds, and never a cycle. */
    private static final int MAX_DEPTH = 32;

    private ChatModelFailures() {
    }

    static Optional<FallbackReason> reasonFor(RuntimeException failure, UnaryOperator<RuntimeException> typing) {
        Throwable typed = null;
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < MAX_DEPTH; cause = cause.getCause(), depth++) {
            if (cause instanceof CancellationException || cause instanceof InterruptedException
                    || cause instanceof DeadlineExceededException || cause instanceof ShutdownException) {
                return Optional.empty();
            }
            if (typed == null && (cause instanceof ExhaustedException || cause instanceof CoolingDownException
                    || cause instanceof QuotaExceededException || cause instanceof HttpStatusException)) {
                typed = cause;
            }
        }
        // A permanent failure reaches the caller as its client threw it: the integration's typing tells what it was.
        return FallbackReason.of((typed != null) ? typed : typing.apply(failure));
    }
}
