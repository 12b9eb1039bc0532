package dev.inference.retry.springai;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.search.Search;

/**
 * Reads counts as an application's tests would: from the {@link Counter}s that SPEC §5 says the
 * starter's counters are, in any registry. A meter of another type is not found.
 */
public final class MeterCounts {

    private MeterCounts() {
    }

    /** Returns the sum of the counters found, 0 when there is none. */
    public static double count(Search search) {
        return search.counters().stream().mapToDouble(Counter::count).sum();
    }
}
