package dev.inference.retry;

import dev.inference.fixtures.MutableClock;
import dev.inference.retry.time.WaitScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * A scheduler that runs in virtual time: a wait ends when {@link #advance} carries the test clock to its
 * end, on the test's thread. Records each delay; {@link #stop()} abandons every pending wait, as a
 * scheduler that shuts down does, and refuses every later one.
 */
final class VirtualScheduler implements WaitScheduler {

    private final MutableClock clock;

    private final List<Pending> pending = new ArrayList<>();

    private final List<Duration> delays = new ArrayList<>();

    private boolean stopped;

    VirtualScheduler(MutableClock clock) {
        this.clock = clock;
    }

    @Override
    public Scheduled schedule(Duration delay, Wait wait) {
        if (this.stopped) {
            throw new RejectedExecutionException("stopped");
        }
        this.delays.add(delay);
        Pending entry = new Pending(this.clock.instant().plus(delay), wait);
        this.pending.add(entry);
        return () -> this.pending.remove(entry);
    }

    /** Advances the clock by {@code duration}, ending each wait that ends meanwhile, in order, at its time. */
    void advance(Duration duration) {
        Instant end = this.clock.instant().plus(duration);
        for (;;) {
            Pending next = this.pending.stream().min(Comparator.comparing(Pending::end)).orElse(null);
            if (next == null || next.end().isAfter(end)) {
                break;
            }
            this.pending.remove(next);
            this.clock.advance(Duration.between(this.clock.instant(), next.end()));
            next.waiting().elapsed();
        }
        this.clock.advance(Duration.between(this.clock.instant(), end));
    }

    /** Abandons every pending wait and refuses the later ones. */
    void stop() {
        this.stopped = true;
        List<Pending> abandoned = List.copyOf(this.pending);
        this.pending.clear();
        abandoned.forEach((entry) -> entry.waiting().abandoned());
    }

    List<Duration> delays() {
        return List.copyOf(this.delays);
    }

    int pendingWaits() {
        return this.pending.size();
    }

    private record Pending(Instant end, Wait waiting) {
    }
}
