package dev.inference.failure;

/**
 * The application is shutting down, so the call was ended instead of retried: its wait before the
 * next attempt was cut short, or a failure arrived after shutdown began. Never retryable.
 *
 * <p>Distinct from {@link java.util.concurrent.CancellationException} (the caller gave up) and from
 * an exhaustion (the provider kept failing), so that callers can answer each as what it is, for
 * example with a 503 that tells the client to try another instance.
 */
public class ShutdownException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was ended, and when
     */
    public ShutdownException(String message) {
        super(message);
    }
}
