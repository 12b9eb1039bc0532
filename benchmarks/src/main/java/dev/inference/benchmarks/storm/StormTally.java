package dev.inference.benchmarks.storm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one contender's run did, seen from both ends: the provider's requests and 429s per second of
 * the run, and each call's fate (answered, with its latency; failed, with why; or still waiting when
 * the run ended). Time is given in nanoseconds since the run's start, so tests run in virtual time.
 *
 * <p>Thread-safe: the provider's threads and the callers' threads record at once. Trap: a call still
 * running when the run ends is counted by {@link #summary(int)}, from the calls started, not by
 * itself; anything it records later is ignored ({@link #close()}).
 */
final class StormTally {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final TreeMap<Long, long[]> perSecond = new TreeMap<>();

    private final List<Long> latencies = new ArrayList<>();

    private final TreeMap<String, Integer> failures = new TreeMap<>();

    private long longestNanos;

    private boolean closed;

    /**
     * Records one request the provider received.
     *
     * @param atNanos when, since the run's start
     * @param refused whether it was answered 429
     */
    synchronized void request(long atNanos, boolean refused) {
        long[] counts = this.perSecond.computeIfAbsent(Math.max(0, atNanos) / NANOS_PER_SECOND, (second) -> new long[2]);
        counts[0]++;
        if (refused) {
            counts[1]++;
        }
    }

    /**
     * Records a call that returned an answer.
     *
     * @param latencyNanos from the call to its return
     */
    synchronized void answered(long latencyNanos) {
        if (this.closed) {
            return;
        }
        this.latencies.add(latencyNanos);
        this.longestNanos = Math.max(this.longestNanos, latencyNanos);
    }

    /**
     * Records a call that threw.
     *
     * @param failure what it threw
     * @param latencyNanos from the call to its failure
     */
    synchronized void failed(Throwable failure, long latencyNanos) {
        if (this.closed) {
            return;
        }
        this.failures.merge(reason(failure), 1, Integer::sum);
        this.longestNanos = Math.max(this.longestNanos, latencyNanos);
    }

    /** Ends the run: calls that end from now on are the unfinished ones, counted by the summary. */
    synchronized void close() {
        this.closed = true;
    }

    /**
     * Returns the requests and 429s of each second, from the run's first second to its last with a
     * request, seconds without one counted as zero.
     *
     * @return one {@code [requests, 429s]} pair per second
     */
    synchronized List<long[]> perSecond() {
        if (this.perSecond.isEmpty()) {
            return List.of();
        }
        List<long[]> seconds = new ArrayList<>();
        for (long second = 0; second <= this.perSecond.lastKey(); second++) {
            long[] counts = this.perSecond.getOrDefault(second, new long[2]);
            seconds.add(new long[] { counts[0], counts[1] });
        }
        return seconds;
    }

    /**
     * Sums the run up.
     *
     * @param started the calls the callers started
     * @return the totals, the failures by reason (the calls not ended when the run ended under
     *     {@code "still waiting at the end"}) and the latencies of the answered calls
     */
    synchronized Summary summary(int started) {
        long requests = 0;
        long refused = 0;
        for (long[] counts : this.perSecond.values()) {
            requests += counts[0];
            refused += counts[1];
        }
        List<Long> sorted = new ArrayList<>(this.latencies);
        Collections.sort(sorted);
        Map<String, Integer> failed = new TreeMap<>(this.failures);
        int ended = sorted.size() + failed.values().stream().mapToInt(Integer::intValue).sum();
        if (started > ended) {
            failed.put("still waiting at the end", started - ended);
        }
        return new Summary(started, requests, refused, sorted.size(), failed, percentile(sorted, 50),
                percentile(sorted, 99), this.longestNanos);
    }

    /**
     * Names why a call failed: the exception's class, and its cause's when it has one of another class
     * (a retry layer's "gave up" wraps the provider's last answer).
     *
     * @param failure what the call threw
     * @return such as {@code ExhaustedException(RateLimitException)}
     */
    static String reason(Throwable failure) {
        String name = failure.getClass().getSimpleName();
        Throwable cause = failure.getCause();
        if (cause == null || cause.getClass() == failure.getClass()) {
            return name;
        }
        return name + "(" + cause.getClass().getSimpleName() + ")";
    }

    /**
     * Returns a nearest-rank percentile: the smallest sample with at least {@code p}% of the samples at
     * or below it.
     *
     * @param sorted the samples, ascending
     * @param p the percentile, from 1 to 100
     * @return the sample, or {@code 0} when there is none
     */
    static long percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(1, rank) - 1);
    }

    /**
     * One contender's totals.
     *
     * @param calls the calls started
     * @param requests the requests the provider received
     * @param refused its 429s
     * @param answered the calls that returned an answer
     * @param failed the calls that did not, by reason
     * @param p50Nanos the median latency of the answered calls
     * @param p99Nanos their 99th percentile
     * @param longestNanos the longest time any call took, answered or failed
     */
    record Summary(int calls, long requests, long refused, int answered, Map<String, Integer> failed, long p50Nanos,
            long p99Nanos, long longestNanos) {

        /**
         * Returns the provider's successes.
         *
         * @return its requests that were not refused
         */
        long successes() {
            return this.requests - this.refused;
        }

        /**
         * Returns the calls that did not return an answer.
         *
         * @return their number, whatever the reason
         */
        int failedCalls() {
            return this.failed.values().stream().mapToInt(Integer::intValue).sum();
        }
    }
}
