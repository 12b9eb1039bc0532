package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A timer whose clock a test moves: a task runs on the test's thread once {@link #advance} passes its
 * time; a task that a task schedules for a time already passed runs at the next advance.
 */
final class ManualTimer implements AttemptScope.Timer {

    private final List<Task> tasks = new ArrayList<>();

    private long now;

    private int scheduled;

    @Override
    public CallContext.Registration schedule(Duration delay, Runnable action) {
        Task task = new Task(this.now + delay.toNanos(), action);
        this.tasks.add(task);
        this.scheduled++;
        return () -> this.tasks.remove(task);
    }

    @Override
    public long nanoTime() {
        return this.now;
    }

    /** Moves the clock on, running the tasks whose time has come, earliest first. */
    void advance(Duration duration) {
        this.now += duration.toNanos();
        List<Task> due = new ArrayList<>(this.tasks);
        due.sort((one, other) -> Long.compare(one.at(), other.at()));
        for (Task task : due) {
            if (task.at() <= this.now && this.tasks.remove(task)) {
                task.action().run();
            }
        }
    }

    /** How many tasks are scheduled and neither run nor withdrawn. */
    int pending() {
        return this.tasks.size();
    }

    /** How many tasks were ever scheduled. */
    int scheduled() {
        return this.scheduled;
    }

    private record Task(long at, Runnable action) {
    }
}
