package dev.inference.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StormTallyTests {

    private static final long SECOND = 1_000_000_000L;

    @Nested
    class Provider {

        @Test
        void countsRequestsAndRefusalsPerSecondOfTheRun() {
            StormTally tally = new StormTally();
            tally.request(100, false);
            tally.request(SECOND - 1, true);
            tally.request(2 * SECOND, true);

            assertThat(tally.perSecond()).containsExactly(new long[] { 2, 1 }, new long[] { 0, 0 },
                    new long[] { 1, 1 });
        }

        @Test
        void totalsTheRequestsRefusalsAndSuccesses() {
            StormTally tally = new StormTally();
            tally.request(0, false);
            tally.request(0, true);
            tally.request(SECOND, true);

            StormTally.Summary summary = tally.summary(0);

            assertThat(summary.requests()).isEqualTo(3);
            assertThat(summary.refused()).isEqualTo(2);
            assertThat(summary.successes()).isEqualTo(1);
        }

        @Test
        void hasNoSecondsBeforeTheFirstRequest() {
            assertThat(new StormTally().perSecond()).isEmpty();
        }
    }

    @Nested
    class Calls {

        @Test
        void countsFailuresByReason() {
            StormTally tally = new StormTally();
            tally.failed(new IllegalStateException("gave up", new CancellationException()), 1);
            tally.failed(new IllegalStateException("gave up", new CancellationException()), 1);
            tally.failed(new CancellationException(), 1);
            tally.answered(5);

            StormTally.Summary summary = tally.summary(4);

            assertThat(summary.answered()).isEqualTo(1);
            assertThat(summary.failed()).containsExactly(Map.entry("CancellationException", 1),
                    Map.entry("IllegalStateException(CancellationException)", 2));
            assertThat(summary.failedCalls()).isEqualTo(3);
        }

        @Test
        void countsTheCallsNotEndedAsStillWaiting() {
            StormTally tally = new StormTally();
            tally.answered(5);

            assertThat(tally.summary(3).failed()).containsExactly(Map.entry("still waiting at the end", 2));
        }

        @Test
        void ignoresWhatEndsAfterTheRun() {
            StormTally tally = new StormTally();
            tally.close();
            tally.answered(5);
            tally.failed(new CancellationException(), 5);

            assertThat(tally.summary(2).failed()).containsExactly(Map.entry("still waiting at the end", 2));
        }

        @Test
        void takesPercentilesOfTheAnsweredCallsAndTheLongestOfAll() {
            StormTally tally = new StormTally();
            for (long latency = 100; latency >= 1; latency--) {
                tally.answered(latency);
            }
            tally.failed(new CancellationException(), 500);

            StormTally.Summary summary = tally.summary(101);

            assertThat(summary.p50Nanos()).isEqualTo(50);
            assertThat(summary.p99Nanos()).isEqualTo(99);
            assertThat(summary.longestNanos()).isEqualTo(500);
        }
    }

    @Nested
    class Percentile {

        @Test
        void isTheNearestRank() {
            assertThat(StormTally.percentile(List.of(10L, 20L, 30L), 50)).isEqualTo(20);
            assertThat(StormTally.percentile(List.of(10L, 20L, 30L, 40L), 50)).isEqualTo(20);
            assertThat(StormTally.percentile(List.of(10L, 20L, 30L), 99)).isEqualTo(30);
        }

        @Test
        void isZeroWithoutSamples() {
            assertThat(StormTally.percentile(List.of(), 50)).isZero();
        }
    }

    @Nested
    class Reason {

        @Test
        void isTheClassAloneWithoutACause() {
            assertThat(StormTally.reason(new CancellationException())).isEqualTo("CancellationException");
        }

        @Test
        void leavesOutACauseOfTheSameClass() {
            assertThat(StormTally.reason(new IllegalStateException(new IllegalStateException())))
                .isEqualTo("IllegalStateException");
        }
    }
}
