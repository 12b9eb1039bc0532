package dev.inference.failure;

/**
 * The call's deadline passed. Never retryable: no further attempt could finish in time.
 */
public class DeadlineExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which deadline passed, and where
     */
    public DeadlineExceededException(String message) {
        super(message);
    }
}
