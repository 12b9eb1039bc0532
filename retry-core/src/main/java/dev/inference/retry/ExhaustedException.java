package dev.inference.retry;

import java.util.Objects;

/**
 * A call failed on every attempt its policy allowed, each time with a retryable failure.
 *
 * <p>The {@linkplain #getCause() cause} is the last attempt's typed failure. This exception is
 * itself never retryable, so decorators nested inside one another do not multiply attempts.
 */
public class ExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** How many attempts the call made, the first included. */
    private final int attempts;

    /**
     * Creates the exception.
     *
     * @param attempts how many attempts were made; at least 1
     * @param cause the last attempt's typed failure
     * @throws NullPointerException if {@code cause} is {@code null}
     * @throws IllegalArgumentException if {@code attempts} is less than 1
     */
    public ExhaustedException(int attempts, RuntimeException cause) {
        this("Gave up after " + attempts(attempts) + ": " + Objects.requireNonNull(cause, "cause must not be null"),
                attempts, cause);
    }

    /**
     * Creates the exception with a message of the subclass's own, which should say why the call gave
     * up and name the cause.
     *
     * @param message the full message
     * @param attempts how many attempts were made; at least 1
     * @param cause the last attempt's typed failure
     * @throws NullPointerException if {@code cause} is {@code null}
     * @throws IllegalArgumentException if {@code attempts} is less than 1
     */
    protected ExhaustedException(String message, int attempts, RuntimeException cause) {
        super(message, Objects.requireNonNull(cause, "cause must not be null"));
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
        this.attempts = attempts;
    }

    /** Says a number of attempts in words: "1 attempt", "2 attempts". */
    static String attempts(int attempts) {
        return attempts + ((attempts == 1) ? " attempt" : " attempts");
    }

    /**
     * Returns how many attempts were made.
     *
     * @return the number of attempts, at least 1
     */
    public int attempts() {
        return this.attempts;
    }

    /**
     * Returns the last attempt's typed failure.
     *
     * @return the cause, never {@code null}
     */
    @Override
    // Not synchronized: the core declares no synchronized method, and super.getCause() takes Throwable's lock.
    @SuppressWarnings("UnsynchronizedOverridesSynchronized")
    public RuntimeException getCause() {
        // The constructor required a cause, and Throwable lets no one replace it afterwards.
        return (RuntimeException) Objects.requireNonNull(super.getCause(), "cause");
    }
}
