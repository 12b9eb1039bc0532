package dev.inference.retry.reactor;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A clock that reads virtual time, so that a context's deadline passes with the waits of a test.
 */
final class NanoClock extends Clock {

    /** The instant every test clock starts at, so that messages naming a deadline are the same. */
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final LongSupplier nanosSinceStart;

    NanoClock(LongSupplier nanosSinceStart) {
        this.nanosSinceStart = nanosSinceStart;
    }

    /** Returns a clock that reads a virtual-time scheduler: {@link #START} when its time is 0. */
    static NanoClock of(VirtualTimeScheduler scheduler) {
        return new NanoClock(() -> scheduler.now(TimeUnit.NANOSECONDS));
    }

    @Override
    public Instant instant() {
        return START.plusNanos(this.nanosSinceStart.getAsLong());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("A NanoClock is always in UTC");
    }
}
