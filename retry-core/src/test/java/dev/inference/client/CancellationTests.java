package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CancellationTests {

    @Test
    void isNotCancelledUntilCancelled() {
        Cancellation cancellation = new Cancellation();
        assertThat(cancellation.isCancelled()).isFalse();
        cancellation.cancel();
        assertThat(cancellation.isCancelled()).isTrue();
    }

    @Test
    void returnsFromAwaitAtOnceOnceCancelled() throws InterruptedException {
        Cancellation cancellation = new Cancellation();
        cancellation.cancel();
        cancellation.await(Long.MAX_VALUE);
        assertThat(cancellation.isCancelled()).isTrue();
    }

    @Test
    void returnsFromAwaitWhenTheTimeElapses() throws InterruptedException {
        Cancellation cancellation = new Cancellation();
        cancellation.await(1);
        assertThat(cancellation.isCancelled()).isFalse();
    }

    @Test
    void throwsFromAwaitWhenInterruptedAndClearsTheFlag() {
        Cancellation cancellation = new Cancellation();
        Thread.currentThread().interrupt();
        assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> cancellation.await(Long.MAX_VALUE));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void forgetsAnActionOnceItHasRun() {
        Cancellation cancellation = new Cancellation();
        AtomicInteger runs = new AtomicInteger();
        CallContext.Registration registration = cancellation.onCancel(runs::incrementAndGet);
        cancellation.cancel();
        registration.close();
        cancellation.cancel();
        assertThat(runs).hasValue(1);
    }

    @Test
    void runsEachActionStillHeldOnceWhenCancelledAndNoneThatWasWithdrawn() {
        Cancellation cancellation = new Cancellation();
        AtomicInteger first = new AtomicInteger();
        AtomicInteger withdrawn = new AtomicInteger();
        AtomicInteger third = new AtomicInteger();
        cancellation.onCancel(first::incrementAndGet);
        cancellation.onCancel(withdrawn::incrementAndGet).close();
        cancellation.onCancel(third::incrementAndGet);
        cancellation.cancel();
        assertThat(first).hasValue(1);
        assertThat(withdrawn).hasValue(0);
        assertThat(third).hasValue(1);
        assertThat(cancellation.registeredActions()).isZero();
    }

    @Test
    void runsAnActionRegisteredAfterTheOneBeforeItWasWithdrawn() {
        Cancellation cancellation = new Cancellation();
        AtomicInteger withdrawn = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        CallContext.Registration registration = cancellation.onCancel(withdrawn::incrementAndGet);
        registration.close();
        cancellation.onCancel(next::incrementAndGet);
        registration.close();
        assertThat(cancellation.registeredActions()).isOne();
        cancellation.cancel();
        assertThat(withdrawn).hasValue(0);
        assertThat(next).hasValue(1);
    }

    /**
     * An action registered while another thread cancels must run exactly once, whichever side
     * wins the race: both try to take it out of where it is held, and only the winner runs it.
     */
    @Test
    @Timeout(60)
    void runsAnActionRacingWithCancelExactlyOnce() throws Exception {
        assertThat(runsWhenRegisteredRacingWithCancel(0)).as("runs of the one action").isEqualTo(1);
    }

    /** As above, for an action registered while another is held, which the cancellation holds apart. */
    @Test
    @Timeout(60)
    void runsASecondActionRacingWithCancelExactlyOnce() throws Exception {
        assertThat(runsWhenRegisteredRacingWithCancel(1)).as("runs of the two actions").isEqualTo(2);
    }

    /** As above, for an action registered while two others are held, which the cancellation holds in a set. */
    @Test
    @Timeout(60)
    void runsAThirdActionRacingWithCancelExactlyOnce() throws Exception {
        assertThat(runsWhenRegisteredRacingWithCancel(2)).as("runs of the three actions").isEqualTo(3);
    }

    /**
     * Two threads registering at once, {@code held} actions being held already, must both land where a
     * cancel finds them: in the two fields, or in the one set that the first of them to make it wins.
     */
    @ParameterizedTest(name = "with {0} held")
    @ValueSource(ints = { 0, 1, 2 })
    @Timeout(60)
    void runsBothOfTwoActionsRegisteredAtOnce(int held) throws Exception {
        ExecutorService registrars = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < 2_000; i++) {
                Cancellation cancellation = new Cancellation();
                AtomicInteger runs = new AtomicInteger();
                for (int h = 0; h < held; h++) {
                    cancellation.onCancel(runs::incrementAndGet);
                }
                Future<?> registering = registrars.submit(() -> cancellation.onCancel(runs::incrementAndGet));
                cancellation.onCancel(runs::incrementAndGet);
                registering.get();
                cancellation.cancel();
                assertThat(runs).hasValue(held + 2);
            }
        }
        finally {
            registrars.shutdownNow();
        }
    }

    /**
     * A cancel racing with the start of a wait must never be lost: the waiter registers before it
     * checks, so it either sees the cancel or is unparked by it. A lost wake-up would hang here.
     */
    @Test
    @Timeout(60)
    void neverLosesACancelThatRacesWithTheStartOfAWait() throws Exception {
        ExecutorService waiters = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < 2_000; i++) {
                Cancellation cancellation = new Cancellation();
                Future<?> waiting = waiters.submit(() -> {
                    cancellation.await(Long.MAX_VALUE);
                    return null;
                });
                cancellation.cancel();
                waiting.get();
            }
        }
        finally {
            waiters.shutdownNow();
        }
    }

    @Test
    void declaresNoSynchronizedMethodThatAWaitCouldPinAVirtualThreadOn() {
        for (Class<?> type : new Class<?>[] { Cancellation.class, CallContext.class }) {
            assertThat(Arrays.stream(type.getDeclaredMethods()).filter((m) -> Modifier.isSynchronized(m.getModifiers()))
                .map(Method::getName)).as(type.getSimpleName()).isEmpty();
        }
    }

    /**
     * Over 2,000 rounds, registers {@code held} actions, then one more while another thread cancels;
     * returns how many runs one round saw, failing if two rounds saw different numbers.
     */
    private static int runsWhenRegisteredRacingWithCancel(int held) throws Exception {
        ExecutorService cancellers = Executors.newSingleThreadExecutor();
        try {
            int seen = -1;
            for (int i = 0; i < 2_000; i++) {
                Cancellation cancellation = new Cancellation();
                AtomicInteger runs = new AtomicInteger();
                for (int h = 0; h < held; h++) {
                    cancellation.onCancel(runs::incrementAndGet);
                }
                Future<?> cancelling = cancellers.submit(cancellation::cancel);
                cancellation.onCancel(runs::incrementAndGet);
                cancelling.get();
                assertThat(seen).as("round " + i).isIn(-1, runs.get());
                seen = runs.get();
            }
            return seen;
        }
        finally {
            cancellers.shutdownNow();
        }
    }
}
