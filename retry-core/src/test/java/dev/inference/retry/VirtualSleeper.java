package dev.inference.retry;

import dev.inference.client.CallContext;
import dev.inference.fixtures.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A sleeper that waits in virtual time: it records each delay and advances a test clock by it.
 */
final class VirtualSleeper implements Sleeper {

    private final List<Duration> delays = new CopyOnWriteArrayList<>();

    private final MutableClock clock;

    VirtualSleeper(MutableClock clock) {
        this.clock = clock;
    }

    VirtualSleeper() {
        this(MutableClock.atStart());
    }

    @Override
    public void sleep(Duration delay, CallContext context) {
        this.delays.add(delay);
        this.clock.advance(delay);
    }

    List<Duration> delays() {
        return List.copyOf(this.delays);
    }
}
