package dev.inference.retry;

/**
 * A call was ended because its client's {@link RetryBudget} refused a retry: the provider has been
 * failing for this client's calls lately, and more retries would only add to its load.
 *
 * <p>An {@link ExhaustedException}, so that callers and the {@code exhausted} meter treat it as any
 * exhaustion; its {@linkplain #getCause() cause} is the failure that was not retried.
 */
public class RetryBudgetExhaustedException extends ExhaustedException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with the message
     * {@code "Retry budget refused a retry after <attempts> attempt(s): <cause>"}.
     *
     * @param attempts how many attempts were made; at least 1
     * @param cause the failure that was not retried
     * @throws NullPointerException if {@code cause} is {@code null}
     * @throws IllegalArgumentException if {@code attempts} is less than 1
     */
    public RetryBudgetExhaustedException(int attempts, RuntimeException cause) {
        super("Retry budget refused a retry after " + attempts(attempts) + ": " + cause, attempts, cause);
    }
}
