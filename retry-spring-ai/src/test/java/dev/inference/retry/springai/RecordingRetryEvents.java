package dev.inference.retry.springai;

import dev.inference.retry.AttemptEvent;
import dev.inference.retry.AttemptObserver;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.RetryListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Records what a retrier tells its listener and its observer, with the {@link System#nanoTime()} of
 * each, so that tests can measure the waits between a retry's scheduling and the next attempt's start.
 */
public final class RecordingRetryEvents implements RetryListener, AttemptObserver {

    private final List<Finished> finished = new CopyOnWriteArrayList<>();

    private final List<Scheduled> scheduled = new CopyOnWriteArrayList<>();

    private final List<Started> started = new CopyOnWriteArrayList<>();

    private final List<ExhaustedException> exhausted = new CopyOnWriteArrayList<>();

    @Override
    public void attemptFinished(AttemptEvent event) {
        this.finished.add(new Finished(event, System.nanoTime()));
    }

    @Override
    public void retryScheduled(AttemptEvent failed, Duration delay) {
        this.scheduled.add(new Scheduled(failed, delay, System.nanoTime()));
    }

    @Override
    public void exhausted(AttemptEvent last, ExhaustedException exception) {
        this.exhausted.add(exception);
    }

    @Override
    public ObservedAttempt attemptStarted(String client, Operation operation, int attempt) {
        this.started.add(new Started(client, operation, attempt, System.nanoTime()));
        return (AttemptEvent outcome, @Nullable Duration retryDelay) -> {
        };
    }

    public List<Finished> finished() {
        return List.copyOf(this.finished);
    }

    public List<Scheduled> scheduled() {
        return List.copyOf(this.scheduled);
    }

    public List<Started> started() {
        return List.copyOf(this.started);
    }

    public List<ExhaustedException> exhausted() {
        return List.copyOf(this.exhausted);
    }

    /** The waits so far: from each retry's scheduling to the start of the attempt after it. */
    public List<Duration> waits() {
        List<Scheduled> retries = scheduled();
        List<Started> attempts = started();
        return retries.stream()
            .filter((retry) -> attempts.size() > retry.failed().attempt())
            .map((retry) -> Duration.ofNanos(attempts.get(retry.failed().attempt()).nanos() - retry.nanos()))
            .toList();
    }

    public record Finished(AttemptEvent event, long nanos) {
    }

    public record Scheduled(AttemptEvent failed, Duration delay, long nanos) {
    }

    public record Started(String client, Operation operation, int attempt, long nanos) {
    }
}
