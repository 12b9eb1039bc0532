package dev.inference.retry.autoconfigure.observation;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.autoconfigure.RetryTags;
import io.micrometer.common.KeyValues;
import java.util.Optional;

/**
 * The default names and key values of the observation of one attempt, named {@value #NAME}:
 * <ul>
 * <li>low cardinality, with the values of the meters' tags: {@code client}, {@code operation}
 * ({@code invoke}, {@code stream}), {@code outcome} ({@code success}, {@code retryable_failure},
 * {@code failure}) and {@code error} ({@code none}, {@code network}, {@code http_<status>}, ...);</li>
 * <li>high cardinality: {@code attempt}, the attempt's 1-based number, and {@code retry.delay}, the
 * exact backoff (ISO-8601) before the next attempt when the call retries.</li>
 * </ul>
 */
public class DefaultRetryAttemptObservationConvention implements RetryAttemptObservationConvention {

    /** The name of the observation. */
    public static final String NAME = "inference.retry.attempt";

    /** What {@code outcome} and {@code error} say of an attempt still in flight. */
    private static final String UNKNOWN = "unknown";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(RetryAttemptContext context) {
        return "retry " + context.getClient() + " attempt " + context.getAttempt();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RetryAttemptContext context) {
        Optional<AttemptEvent> outcome = context.getOutcome();
        return KeyValues.of("client", context.getClient(), "operation", RetryTags.operation(context.getOperation()),
                "outcome", outcome.map(RetryTags::outcome).orElse(UNKNOWN), "error",
                outcome.map(RetryTags::error).orElse(UNKNOWN));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(RetryAttemptContext context) {
        KeyValues values = KeyValues.of("attempt", Integer.toString(context.getAttempt()));
        return context.getRetryDelay().map((delay) -> values.and("retry.delay", delay.toString())).orElse(values);
    }
}
