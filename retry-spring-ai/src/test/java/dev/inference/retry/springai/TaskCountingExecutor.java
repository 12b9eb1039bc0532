package dev.inference.retry.springai;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
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

    /**
     * Makes the executor.
     *
     * @param name the prefix of its threads' names
     */
    public TaskCountingExecutor(String name) {
        this.name = name;
        this.pool = Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, this.name + "-" + this.threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public void execute(Runnable task) {
        this.tasks.incrementAndGet();
        this.pool.execute(() -> {
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
