package dev.inference.benchmarks.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class PairedForksTests {

    @Test
    void givesAForkTheHarnessArgumentsWithoutForksAndAsksForItsReport() {
        assertThat(PairedForks.forkArguments(new String[] { "--timeouts", "--forks", "8", "--in-memory" }))
            .containsExactly("--timeouts", "--in-memory", PairedForks.REPORT);
    }

    @Test
    void givesAForkThisJvmsOptionsAndACommonPoolOfTwoThreads() {
        assertThat(PairedForks.jvmOptions(List.of("-Xmx1g")))
            .containsExactly("-Xmx1g", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2");
    }

    @Test
    void leavesAForkTheCommonPoolSizeThatThisJvmWasGiven() {
        assertThat(PairedForks.jvmOptions(List.of("-Djava.util.concurrent.ForkJoinPool.common.parallelism=1")))
            .containsExactly("-Djava.util.concurrent.ForkJoinPool.common.parallelism=1");
    }

    @Test
    void boundsTheMeanOfFourForksByStudentsTWithThreeDegreesOfFreedom() {
        PairedForks.Interval interval = PairedForks.Interval.of(new double[] { 1, 2, 3, 4 });

        // s = √(5/3), t(0.975, 3) = 3.1824: 3.1824 · s / √4.
        assertThat(interval.mean()).isEqualTo(2.5);
        assertThat(interval.halfWidth()).isCloseTo(3.1824 * Math.sqrt(5.0 / 3) / 2, within(1e-3));
        assertThat(interval.lower()).isCloseTo(2.5 - interval.halfWidth(), within(1e-12));
        assertThat(interval.upper()).isCloseTo(2.5 + interval.halfWidth(), within(1e-12));
    }

    @Test
    void refusesAnIntervalOfOneFork() {
        assertThatIllegalArgumentException().isThrownBy(() -> PairedForks.Interval.of(new double[] { 1 }))
            .withMessage("An interval needs at least two values, was 1");
    }
}
