package dev.inference.retry.springai;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An executor on a pool of threads of its own that counts the tasks it is given and notes the threads
 * that ran them: the stream handler executor of a provider SDK client in the tests that check on which
 * threads a stream is read. Closing it stops its threads.
 */
public final class TaskCountingExecutor implements Executor, AutoCloseable {

    private final String name;

    private final AtomicInteger threads = new AtomicInteger();

    private final ExecutorService pool;

    private final AtomicInteger tasks = new AtomicInteger();

    private final List<Thread> ranOn = new CopyOnWriteArrayList<>();

    private final CountDownLatch released;

    /**
     * Makes the executor.
     *
     * @param name the prefix of its threads' names
     */
    public TaskCountingExecutor(String name) {
        this(name, 0);
    }

    private TaskCountingExecutor(String name, int holds) {
        this.name = name;
        this.released = new CountDownLatch(holds);
        this.pool = Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, this.name + "-" + this.threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Makes an executor whose tasks wait until {@link #release()}: for a test that must act before the
     * executor runs anything, such as subscribe to a stream before its first event is read.
     *
     * @param name the prefix of its threads' names
     * @return the executor
     */
    public static TaskCountingExecutor holding(String name) {
        return new TaskCountingExecutor(name, 1);
    }

    /** Lets the tasks of an executor {@linkplain #holding holding} them run, and every later one at once. */
    public void release() {
        this.released.countDown();
    }

    @Override
    public void execute(Runnable task) {
        this.tasks.incrementAndGet();
        this.pool.execute(() -> {
            try {
                this.released.await();
            }
            catch (InterruptedException ex) {
                // Closed while holding: the task never runs.
                Thread.currentThread().interrupt();
                return;
            }
            this.ranOn.add(Thread.currentThread());
            task.run();
        });
    }

    /** Returns how many tasks it was given. */
    public int tasks() {
        return this.tasks.get();
    }

    /** Returns the threads that ran its tasks. */
    public Set<Thread> threadsThatRanTasks() {
        return Set.copyOf(this.ranOn);
    }

    @Override
    public void close() {
        this.pool.shutdownNow();
    }
}
