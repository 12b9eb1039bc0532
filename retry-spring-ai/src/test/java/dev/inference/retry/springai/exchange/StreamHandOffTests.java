package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StreamHandOffTests {

    private final List<String> queued = new ArrayList<>();

    private final List<String> ran = new ArrayList<>();

    /** The SDK's own stream handler executor, which only queues what it is given. */
    private final Executor sdkExecutor = (task) -> this.queued.add(task.toString());

    private final Executor executor = StreamHandOff.streamHandlerExecutor(this.sdkExecutor);

    @Nested
    class DuringAHandOver {

        @Test
        void runsTheFirstTaskOnTheHandingThreadAtOnce() {
            Thread handing = Thread.currentThread();
            List<Thread> ranOn = new ArrayList<>();

            StreamHandOff.handOver(sdkExecutor, () -> executor.execute(() -> ranOn.add(Thread.currentThread())));

            assertThat(ranOn).containsExactly(handing);
            assertThat(queued).isEmpty();
        }

        @Test
        void givesEveryLaterTaskToTheSdksExecutor() {
            StreamHandOff.handOver(sdkExecutor, () -> {
                executor.execute(task("the stream's handler"));
                executor.execute(task("another stream's handler"));
            });

            assertThat(ran).containsExactly("the stream's handler");
            assertThat(queued).containsExactly("another stream's handler");
        }

        @Test
        void givesTheTaskToTheSdksExecutorWhenAnotherExecutorReadTheFirstEvent() {
            Executor otherReader = (task) -> {
            };

            StreamHandOff.handOver(otherReader, () -> executor.execute(task("the stream's handler")));

            assertThat(ran).isEmpty();
            assertThat(queued).containsExactly("the stream's handler");
        }

        @Test
        void givesATaskSubmittedFromTheFirstToTheSdksExecutor() {
            StreamHandOff.handOver(sdkExecutor,
                    () -> executor.execute(() -> executor.execute(task("started by the handler"))));

            assertThat(queued).containsExactly("started by the handler");
        }
    }

    @Nested
    class OutsideAHandOver {

        @Test
        void givesEveryTaskToTheSdksExecutor() {
            executor.execute(task("a subscription made after the exchange completed"));

            assertThat(ran).isEmpty();
            assertThat(queued).containsExactly("a subscription made after the exchange completed");
        }

        @Test
        void givesATaskToTheSdksExecutorOnceAHandOverThatSubmittedNothingHasEnded() {
            StreamHandOff.handOver(sdkExecutor, () -> {
            });

            executor.execute(task("later"));

            assertThat(queued).containsExactly("later");
        }

        @Test
        void givesATaskToTheSdksExecutorOnceAHandOverHasThrown() {
            assertThatThrownBy(() -> StreamHandOff.handOver(sdkExecutor, () -> {
                throw new IllegalStateException("completing failed");
            })).hasMessage("completing failed");

            executor.execute(task("later"));

            assertThat(queued).containsExactly("later");
        }
    }

    /** A task that notes it ran, and says its name. */
    private Runnable task(String name) {
        return new Runnable() {

            @Override
            public void run() {
                ran.add(name);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
