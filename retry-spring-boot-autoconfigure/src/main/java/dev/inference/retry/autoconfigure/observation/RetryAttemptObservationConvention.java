package dev.inference.retry.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The names and key values of the observation of one attempt. Declare a bean of this type to
 * replace {@link DefaultRetryAttemptObservationConvention}, or extend that class to add to it.
 */
public interface RetryAttemptObservationConvention extends ObservationConvention<RetryAttemptContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof RetryAttemptContext;
    }
}
