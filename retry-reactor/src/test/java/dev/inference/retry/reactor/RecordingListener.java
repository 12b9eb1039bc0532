package dev.inference.retry.reactor;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.RetryListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A listener that records every call it receives, in order, as comparable values.
 */
final class RecordingListener implements RetryListener {

    private final List<Object> calls = new CopyOnWriteArrayList<>();

    @Override
    public void attemptFinished(AttemptEvent event) {
        this.calls.add(new Finished(event));
    }

    @Override
    public void retryScheduled(AttemptEvent failed, Duration delay) {
        this.calls.add(new Scheduled(failed, delay));
    }

    @Override
    public void exhausted(AttemptEvent last, ExhaustedException exception) {
        this.calls.add(new Exhausted(last, exception.attempts(), exception.getCause()));
    }

    List<Object> calls() {
        return List.copyOf(this.calls);
    }

    record Finished(AttemptEvent event) {
    }

    record Scheduled(AttemptEvent failed, Duration delay) {
    }

    /** An exhaustion, with the exception's attempts and cause: each call makes a new exception. */
    record Exhausted(AttemptEvent last, int attempts, Throwable cause) {
    }
}
