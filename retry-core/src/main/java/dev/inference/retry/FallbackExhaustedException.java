package dev.inference.retry;

import java.util.List;
import java.util.Objects;

/**
 * Every member of a fallback chain fell over: the call was answered by none of them.
 *
 * <p>The {@linkplain #getCause() cause} is the last member's failure, as that member threw it; every
 * earlier member's failure is attached as {@linkplain #getSuppressed() suppressed}, in the members'
 * order. {@link #attempts()} is the sum of the attempts the members made.
 */
public class FallbackExhaustedException extends ExhaustedException {

    private static final long serialVersionUID = 1L;

    /** The name of the chain whose members all fell over. */
    private final String chain;

    /**
     * Creates the exception with the message
     * {@code "Fallback chain '<chain>' fell over from every member after <attempts> attempt(s): <cause>"}.
     *
     * @param chain the chain's name
     * @param attempts the attempts the members made, at least 1
     * @param failures each called member's failure, in order; the last is the cause
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code failures} is empty or {@code attempts} is less than 1
     */
    public FallbackExhaustedException(String chain, int attempts, List<? extends RuntimeException> failures) {
        super("Fallback chain '" + Objects.requireNonNull(chain, "chain must not be null")
                + "' fell over from every member after " + attempts(attempts) + ": " + last(failures), attempts,
                last(failures));
        this.chain = chain;
        for (int i = 0; i < failures.size() - 1; i++) {
            addSuppressed(failures.get(i));
        }
    }

    private static RuntimeException last(List<? extends RuntimeException> failures) {
        if (failures.isEmpty()) {
            throw new IllegalArgumentException("failures must not be empty: the cause is the last member's failure");
        }
        return failures.get(failures.size() - 1);
    }

    /**
     * Returns the name of the chain whose members all fell over.
     *
     * @return the chain's name, such as its bean name
     */
    public String chain() {
        return this.chain;
    }
}
