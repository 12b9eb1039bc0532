package dev.inference.retry.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs one task on several platform threads at once: every thread waits at a start gate until all
 * are ready, so that their work overlaps as much as the machine allows.
 */
final class Concurrently {

    private Concurrently() {
    }

    /**
     * Runs {@code task} on {@code threads} threads at once and returns when all have finished.
     *
     * @param threads the number of threads
     * @param task what each thread does, given its index, from 0
     * @throws Exception the first failure of a task, in thread order, or an interruption
     */
    static void run(int threads, IndexedTask task) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch ready = new CountDownLatch(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int index = 0; index < threads; index++) {
                int thread = index;
                done.add(executor.submit(() -> {
                    ready.countDown();
                    ready.await();
                    task.run(thread);
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        }
        finally {
            executor.shutdownNow();
        }
    }

    /** The work of one thread. */
    @FunctionalInterface
    interface IndexedTask {

        /**
         * Does the work of one thread.
         *
         * @param thread the thread's index, from 0
         * @throws Exception any failure, which fails the run
         */
        void run(int thread) throws Exception;
    }
}
