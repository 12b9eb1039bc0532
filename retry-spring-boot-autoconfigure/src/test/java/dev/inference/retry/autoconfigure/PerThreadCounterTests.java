package dev.inference.retry.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

class PerThreadCounterTests {

    private static final int THREADS = 8;

    private static final int INCREMENTS = 20_000;

    private final PerThreadCounter counter = new PerThreadCounter();

    @Test
    void startsAtZeroWithNoCellOwned() {
        assertThat(this.counter.sum()).isZero();
        assertThat(this.counter.cellsOfLiveThreads()).isZero();
    }

    @Test
    void countsEveryIncrementOfAThreadInOneCell() {
        for (int i = 0; i < 3; i++) {
            this.counter.increment();
        }
        assertThat(this.counter.sum()).isEqualTo(3);
        assertThat(this.counter.cellsOfLiveThreads()).isEqualTo(1);
    }

    @Test
    void refusesCellCountsThatAreNotPowersOfTwo() {
        assertThatIllegalArgumentException().isThrownBy(() -> new PerThreadCounter(3, 8))
            .withMessageContaining("powers of two");
    }

    @Test
    void refusesFewerMostCellsThanInitialCells() {
        assertThatIllegalArgumentException().isThrownBy(() -> new PerThreadCounter(8, 4))
            .withMessageContaining("initialCells <= maxCells");
    }

    @Nested
    class OnPlatformThreads {

        @Test
        @Timeout(60)
        void sumsTheIncrementsOfThreadsStillRunningThatHappenedBeforeTheSum() throws Exception {
            whileThreadsRunAfterCounting(counter, () -> {
                assertThat(counter.sum()).isEqualTo((long) THREADS * INCREMENTS);
                assertThat(counter.cellsOfLiveThreads()).isEqualTo(THREADS);
            });
        }

        @Test
        @Timeout(60)
        void keepsTheCountsOfThreadsThatEnded() throws Exception {
            join(start(THREADS, () -> incrementAll(counter)));
            assertThat(counter.sum()).isEqualTo((long) THREADS * INCREMENTS);
            assertThat(counter.cellsOfLiveThreads()).isZero();
        }

        @Test
        @Timeout(60)
        void givesTheCellOfAThreadThatEndedToTheNextThreadWithoutLosingItsCount() throws Exception {
            PerThreadCounter oneCell = new PerThreadCounter(1, 1);
            for (int i = 0; i < THREADS; i++) {
                join(start(1, () -> incrementAll(oneCell)));
            }
            oneCell.increment();
            assertThat(oneCell.sum()).isEqualTo((long) THREADS * INCREMENTS + 1);
            assertThat(oneCell.cells()).isEqualTo(1);
            assertThat(oneCell.cellsOfLiveThreads()).isEqualTo(1);
        }

        @Test
        @Timeout(60)
        void doublesTheCellsWhenAThreadMeetsTheCellOfALiveThread() throws Exception {
            PerThreadCounter twoCells = new PerThreadCounter(2, 64);
            whileThreadsRunAfterCounting(twoCells, () -> {
                assertThat(twoCells.cells()).isGreaterThanOrEqualTo(THREADS);
                assertThat(twoCells.cellsOfLiveThreads()).isEqualTo(THREADS);
                assertThat(twoCells.sum()).isEqualTo((long) THREADS * INCREMENTS);
            });
        }

        @Test
        @Timeout(60)
        void keepsTheCountsOfEndedThreadsWhoseCellsADoublingDrops() throws Exception {
            PerThreadCounter twoCells = new PerThreadCounter(2, 64);
            join(start(THREADS, () -> incrementAll(twoCells)));
            whileThreadsRunAfterCounting(twoCells, () -> {
                assertThat(twoCells.sum()).isEqualTo(2L * THREADS * INCREMENTS);
            });
        }

        @Test
        @Timeout(60)
        void countsThreadsBeyondTheMostCellsInTheSharedAdder() throws Exception {
            PerThreadCounter oneCell = new PerThreadCounter(1, 1);
            whileThreadsRunAfterCounting(oneCell, () -> {
                assertThat(oneCell.cells()).isEqualTo(1);
                assertThat(oneCell.sum()).isEqualTo((long) THREADS * INCREMENTS);
            });
        }

        @Test
        @Timeout(120)
        void neverSumsLessThanAnEarlierSumWhileThreadsCountEndAndMeet() throws Exception {
            PerThreadCounter fewCells = new PerThreadCounter(1, 4);
            int waves = 40;
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicLong sums = new AtomicLong();
            AtomicLong decreases = new AtomicLong();
            Thread reader = new Thread(() -> {
                long last = 0;
                while (writing.get()) {
                    long sum = fewCells.sum();
                    if (sum < last) {
                        decreases.incrementAndGet();
                    }
                    last = sum;
                    sums.incrementAndGet();
                }
            }, "sum-reader");
            reader.start();
            try {
                for (int wave = 0; wave < waves; wave++) {
                    join(start(6, () -> {
                        for (int i = 0; i < 1_000; i++) {
                            fewCells.increment();
                        }
                    }));
                }
            }
            finally {
                writing.set(false);
                reader.join();
            }
            assertThat(sums.get()).isPositive();
            assertThat(decreases).hasValue(0);
            assertThat(fewCells.sum()).isEqualTo(waves * 6 * 1_000L);
        }
    }

    @Nested
    @EnabledForJreRange(min = JRE.JAVA_21)
    class OnVirtualThreads {

        private static final int TASKS = 10_000;

        @Test
        @Timeout(120)
        void countsEveryIncrementOfTenThousandVirtualThreadsWithoutACellForAny() throws Exception {
            ExecutorService executor = newVirtualThreadPerTaskExecutor();
            try {
                List<Future<Boolean>> tasks = new ArrayList<>(TASKS);
                for (int i = 0; i < TASKS; i++) {
                    tasks.add(executor.submit(() -> {
                        for (int n = 0; n < 10; n++) {
                            counter.increment();
                        }
                        return isVirtual();
                    }));
                }
                for (Future<Boolean> task : tasks) {
                    assertThat(task.get()).isTrue();
                }
            }
            finally {
                executor.shutdown();
                assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(counter.sum()).isEqualTo(TASKS * 10L);
            assertThat(counter.cellsOfLiveThreads()).isZero();
        }

        @Test
        @Timeout(60)
        void addsTheVirtualThreadsCountsToThoseOfPlatformThreads() throws Exception {
            counter.increment();
            ExecutorService executor = newVirtualThreadPerTaskExecutor();
            try {
                executor.submit(counter::increment).get();
            }
            finally {
                executor.shutdown();
                assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(counter.sum()).isEqualTo(2);
            assertThat(counter.cellsOfLiveThreads()).isEqualTo(1);
        }

        // Compiled with --release 17: reach the Java 21 API reflectively.
        private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        }

        private static boolean isVirtual() throws ReflectiveOperationException {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        }
    }

    /**
     * Starts {@value #THREADS} threads that count {@value #INCREMENTS} each and then wait, runs the
     * check while they are all alive and done counting, then lets them end and joins them.
     */
    private static void whileThreadsRunAfterCounting(PerThreadCounter counter, Runnable check) throws Exception {
        CountDownLatch counted = new CountDownLatch(THREADS);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = start(THREADS, () -> {
            incrementAll(counter);
            counted.countDown();
            await(release);
        });
        try {
            counted.await();
            check.run();
        }
        finally {
            release.countDown();
            join(threads);
        }
    }

    private static void incrementAll(PerThreadCounter counter) {
        for (int i = 0; i < INCREMENTS; i++) {
            counter.increment();
        }
    }

    private static List<Thread> start(int count, Runnable task) {
        List<Thread> threads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(task, "counting-" + i);
            thread.start();
            threads.add(thread);
        }
        return threads;
    }

    private static void join(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
