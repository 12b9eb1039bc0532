package dev.inference.retry.springai;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.RetryAfter;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.http.HttpHeaders;

/**
 * Types what an exchange of Spring's {@code RestClient} or {@code WebClient} produced as the core's
 * failures, and attaches them to the exceptions those clients throw.
 *
 * <p>The retry decisions classify a failure by the first typed failure in its cause chain, while the
 * caller must get the client's own exception (on exhaustion, as the cause of the
 * {@link dev.inference.retry.ExhaustedException}). So each failure is the client's exception with the
 * typed failure as its cause; see {@link #withTypedCause}.
 */
final class SpringHttpFailures {

    /** The header in which some providers give their wait in milliseconds, read before {@code Retry-After}. */
    static final String RETRY_AFTER_MS = "retry-after-ms";

    private SpringHttpFailures() {
    }

    /**
     * Returns the typed failure of a response whose status is 400 or more. Reads the headers only.
     *
     * @param status the response's status code
     * @param headers the response's headers
     * @param clock the clock that says what "now" is for a {@code Retry-After} date
     * @return the status failure with the provider's wait, if it asked for one
     */
    static HttpStatusException statusFailure(int status, HttpHeaders headers, Clock clock) {
        return new HttpStatusException(status, "The provider answered HTTP " + status,
                retryAfter(headers, clock).orElse(null));
    }

    /**
     * Reads the wait a provider asked for: {@code retry-after-ms} first, then {@code Retry-After}.
     *
     * @param headers the response's headers
     * @param clock the clock for an HTTP-date
     * @return the positive wait, or empty when the headers ask for none (or hold garbage)
     */
    static Optional<Duration> retryAfter(HttpHeaders headers, Clock clock) {
        Optional<Duration> millis = RetryAfter.parseMillis(headers.getFirst(RETRY_AFTER_MS));
        return millis.isPresent() ? millis : RetryAfter.parse(headers.getFirst(HttpHeaders.RETRY_AFTER), clock);
    }

    /**
     * Returns the typed failure of a transport failure (connection refused or reset, timeout, a
     * response cut before its status), to put beneath the client's exception for it.
     *
     * @param transportFailure what the transport threw
     * @return a network failure with the transport's message, caused by {@code transportFailure}
     */
    static NetworkException networkFailure(Throwable transportFailure) {
        String message = transportFailure.getMessage();
        return new NetworkException((message != null) ? message : "The request failed", transportFailure);
    }

    /**
     * Attaches a typed failure to the exception a client made for it, so that the retry decisions can
     * classify that exception.
     *
     * <p>The exceptions the clients make for a status (Spring AI's {@code TransientAiException} and
     * {@code NonTransientAiException}, {@code WebClientResponseException}) have no cause of their own:
     * the typed failure becomes their cause, as {@code WebClient} itself gives such an exception the
     * failure it stands for. An exception that already has a cause is left as it is and becomes the
     * cause of the typed failure instead, which is then what the decisions and the caller get.
     *
     * @param thrown the client's exception, not yet thrown to anyone
     * @param typed the typed failure it stands for, which has no cause yet
     * @return {@code thrown} with {@code typed} as its cause, or {@code typed} with {@code thrown} as its
     *     cause
     */
    static RuntimeException withTypedCause(RuntimeException thrown, RuntimeException typed) {
        if (thrown.getCause() == null) {
            try {
                thrown.initCause(typed);
                return thrown;
            }
            catch (IllegalStateException causeSetToNull) {
                // Its constructor was given a null cause: it can have no other.
            }
        }
        typed.initCause(thrown);
        return typed;
    }
}
