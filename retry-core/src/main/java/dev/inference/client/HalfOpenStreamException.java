package dev.inference.client;

import java.util.Objects;

/**
 * Thrown from {@link InferenceClient#stream} when establishment failed after the client had already
 * created a reader, so that the caller can close that reader.
 *
 * <p>It only carries the reader: the failure itself is the {@linkplain #getCause() cause}, and it is
 * the cause that retry decorators classify, report and rethrow.
 */
public class HalfOpenStreamException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient StreamReader reader;

    /**
     * Creates the exception.
     *
     * @param reader the reader created before establishment failed; whoever catches this exception
     *     must close it
     * @param cause the typed establishment failure
     * @throws NullPointerException if either argument is {@code null}
     */
    public HalfOpenStreamException(StreamReader reader, RuntimeException cause) {
        super("stream establishment failed after a reader was created: "
                + Objects.requireNonNull(cause, "cause must not be null"), cause);
        this.reader = Objects.requireNonNull(reader, "reader must not be null");
    }

    /**
     * Returns the reader that must be closed.
     *
     * @return the reader
     */
    public StreamReader reader() {
        return this.reader;
    }

    /**
     * Returns the typed establishment failure.
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
