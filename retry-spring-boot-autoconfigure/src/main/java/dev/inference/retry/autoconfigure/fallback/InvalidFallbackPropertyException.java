package dev.inference.retry.autoconfigure.fallback;

import dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException;
import org.jspecify.annotations.Nullable;

/**
 * A fallback chain's settings are invalid: the exception names the chain, the full property, the
 * value and the rule, and says what to change, for the failure analyzer's report.
 */
public class InvalidFallbackPropertyException extends InvalidRetryPropertyException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param chain the chain's name
     * @param property the full name of the offending property
     * @param value the offending value, or {@code null} when it is missing
     * @param rule the rule that is broken, phrased as what the value must be
     * @param action what to change, naming the exact property keys
     */
    public InvalidFallbackPropertyException(String chain, String property, @Nullable Object value, String rule,
            String action) {
        super("fallback chain", chain, property, value, rule, action);
    }
}
