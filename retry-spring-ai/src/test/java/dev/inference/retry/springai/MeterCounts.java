package dev.inference.retry.springai;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.search.Search;
import java.util.stream.StreamSupport;

/**
 * Reads counts from meters whatever their class: {@code inference.retry.attempts} is a
 * {@code FunctionCounter} in most registries and a {@code Counter} in a composite one.
 */
public final class MeterCounts {

    private MeterCounts() {
    }

    /** Returns the sum of the counts of the meters found, 0 when there is none. */
    public static double count(Search search) {
        return search.meters().stream()
            .map(Meter::measure)
            .flatMap((measurements) -> StreamSupport.stream(measurements.spliterator(), false))
            .filter((measurement) -> measurement.getStatistic() == Statistic.COUNT)
            .mapToDouble(Measurement::getValue)
            .sum();
    }
}
