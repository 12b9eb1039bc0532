package dev.inference.retry.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.inference.client.CallContext;
import dev.inference.fixtures.SpuriousWakeups;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ShutdownSignalTests {

    private final ShutdownSignal signal = ShutdownSignal.create();

    @Test
    void hasNotFiredWhenCreated() {
        assertThat(this.signal.isShutDown()).isFalse();
        assertThat(this.signal).hasToString("ShutdownSignal[running]");
    }

    @Test
    void staysFiredOnceFired() {
        this.signal.shutDown();
        this.signal.shutDown();

        assertThat(this.signal.isShutDown()).isTrue();
        assertThat(this.signal).hasToString("ShutdownSignal[shut down]");
    }

    @Test
    void firesWhenClosed() {
        this.signal.close();

        assertThat(this.signal.isShutDown()).isTrue();
    }

    @Test
    void runsEachRegisteredActionOnce() {
        List<String> ran = new ArrayList<>();
        this.signal.onShutDown(() -> ran.add("first"));
        this.signal.onShutDown(() -> ran.add("second"));

        this.signal.shutDown();
        this.signal.shutDown();

        assertThat(ran).containsExactlyInAnyOrder("first", "second");
    }

    @Test
    void runsAnActionRegisteredAfterFiringAtOnce() {
        List<String> ran = new ArrayList<>();
        this.signal.shutDown();

        this.signal.onShutDown(() -> ran.add("late"));

        assertThat(ran).containsExactly("late");
    }

    @Test
    void runsNoWithdrawnAction() {
        List<String> ran = new ArrayList<>();
        CallContext.Registration registration = this.signal.onShutDown(() -> ran.add("withdrawn"));
        registration.close();

        this.signal.shutDown();

        assertThat(ran).isEmpty();
    }

    @Test
    void runsEveryActionBeforeThrowingWhatTheyThrew() {
        List<String> ran = new ArrayList<>();
        this.signal.onShutDown(() -> {
            throw new IllegalStateException("first broken");
        });
        this.signal.onShutDown(() -> ran.add("still run"));

        assertThatIllegalStateException().isThrownBy(this.signal::shutDown).withMessage("first broken");
        assertThat(ran).containsExactly("still run");
        assertThat(this.signal.isShutDown()).isTrue();
    }

    @Test
    void endsAWaitThatItFiredBeforeAtOnce() throws InterruptedException {
        this.signal.shutDown();

        this.signal.await(Duration.ofDays(1), CallContext.background());

        assertThat(this.signal.isShutDown()).isTrue();
    }

    @Test
    void suppressesWhatLaterActionsThrewInTheFirst() {
        this.signal.onShutDown(() -> {
            throw new IllegalStateException("broken");
        });
        this.signal.onShutDown(() -> {
            throw new IllegalStateException("broken");
        });

        assertThatIllegalStateException().isThrownBy(this.signal::shutDown)
            .satisfies((ex) -> assertThat(ex.getSuppressed()).hasSize(1));
    }

    @Test
    void throwsWhatAnActionRegisteredAfterFiringThrew() {
        this.signal.shutDown();

        assertThatIllegalStateException().isThrownBy(() -> this.signal.onShutDown(() -> {
            throw new IllegalStateException("late and broken");
        })).withMessage("late and broken");
    }

    @Test
    void endsAWaitWhenItsTimeIsUp() throws InterruptedException {
        this.signal.await(Duration.ofMillis(1), CallContext.background());

        assertThat(this.signal.isShutDown()).isFalse();
    }

    @Test
    void waitsItsWholeDelayThroughSpuriousWakeups() throws Exception {
        Duration delay = Duration.ofMillis(50);

        assertThat(SpuriousWakeups.lengthOf(() -> this.signal.await(delay, CallContext.cancellable())))
            .isGreaterThanOrEqualTo(delay);
    }

    @Test
    @Timeout(30)
    void endsAWaitWhenTheContextIsCancelled() throws Exception {
        CallContext context = CallContext.cancellable();
        CompletableFuture<Void> waited = CompletableFuture.runAsync(() -> {
            try {
                this.signal.await(Duration.ofDays(1), context);
            }
            catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });

        context.cancel();

        waited.get();
        assertThat(this.signal.isShutDown()).isFalse();
    }

    @Test
    @Timeout(60)
    void leavesNothingOfAFinishedWaitOnTheSignalOrTheContext() throws InterruptedException {
        CallContext context = CallContext.cancellable();
        WeakReference<Thread> waiter = waitOnAThreadThatEnds(context);

        // Were a registration left behind, its callback would hold the ended waiting thread.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (waiter.get() != null) {
            assertThat(System.nanoTime()).as("the ended waiting thread is collected within 30 s").isLessThan(deadline);
            System.gc();
        }
        Reference.reachabilityFence(context);
        Reference.reachabilityFence(this.signal);
    }

    private WeakReference<Thread> waitOnAThreadThatEnds(CallContext context) throws InterruptedException {
        List<InterruptedException> interrupted = new ArrayList<>();
        Thread waiter = new Thread(() -> {
            try {
                this.signal.await(Duration.ZERO, context);
            }
            catch (InterruptedException ex) {
                interrupted.add(ex);
            }
        });
        waiter.start();
        waiter.join();
        assertThat(interrupted).isEmpty();
        return new WeakReference<>(waiter);
    }

    @Test
    void throwsWhenTheWaitingThreadWasInterrupted() {
        Thread.currentThread().interrupt();

        assertThatExceptionOfType(InterruptedException.class)
            .isThrownBy(() -> this.signal.await(Duration.ofDays(1), CallContext.background()));
    }
}
