package dev.inference.retry.springai;

import dev.inference.failure.NetworkException;

/**
 * Types the transport failures of Spring's {@code RestClient} and {@code WebClient} as the core's
 * failures, and attaches typed failures to the exceptions those clients throw (the typed failure of an
 * error status is {@link SdkFailures#statusFailure}'s, as for the SDKs).
 *
 * <p>The retry decisions classify a failure by the first typed failure in its cause chain, while the
 * caller must get the client's own exception (on exhaustion, as the cause of the
 * {@link dev.inference.retry.ExhaustedException}). So each failure is the client's exception with the
 * typed failure as its cause; see {@link #withTypedCause}.
 */
final class SpringHttpFailures {

    private SpringHttpFailures() {
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
