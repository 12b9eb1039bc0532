package dev.inference.retry.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SleeperTests {

    private final Sleeper system = Sleeper.system();

    @Test
    void returnsAtOnceForACancelledContext() throws InterruptedException {
        CallContext context = CallContext.cancellable();
        context.cancel();
        this.system.sleep(Duration.ofDays(365), context);
        assertThat(context.isDone()).isTrue();
    }

    @Test
    void returnsOnceTheDelayHasElapsed() throws InterruptedException {
        CallContext context = CallContext.cancellable();
        this.system.sleep(Duration.ofNanos(1), context);
        assertThat(context.isDone()).isFalse();
    }

    @Test
    void throwsWhenTheThreadIsInterrupted() {
        Thread.currentThread().interrupt();
        assertThatExceptionOfType(InterruptedException.class)
            .isThrownBy(() -> this.system.sleep(Duration.ofDays(1), CallContext.cancellable()));
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    @Timeout(30)
    void wakesWhenTheContextIsCancelledFromAnotherThread() throws Exception {
        CallContext context = CallContext.cancellable();
        CompletableFuture<Void> slept = new CompletableFuture<>();
        Thread sleeping = new Thread(() -> {
            try {
                this.system.sleep(Duration.ofHours(1), context);
                slept.complete(null);
            }
            catch (Throwable ex) {
                slept.completeExceptionally(ex);
            }
        });
        sleeping.start();
        Thread.State state = sleeping.getState();
        while (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            assertThat(slept).isNotDone();
            Thread.yield();
            state = sleeping.getState();
        }
        context.cancel();
        slept.get();
        assertThat(context.isDone()).isTrue();
    }

    @Test
    void describesTheSystemSleeper() {
        assertThat(Sleeper.system()).hasToString("Sleeper.system()");
    }
}
