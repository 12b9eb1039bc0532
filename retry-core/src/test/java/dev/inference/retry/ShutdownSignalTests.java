package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.inference.client.CallContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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

        this.signal.await(Long.MAX_VALUE, CallContext.background());

        assertThat(this.signal.isShutDown()).isTrue();
    }
}
