package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.CallContext;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link FallbackMark}: the word that a call has a fallback reaches the loops started on the calling
 * thread while the call runs, and the loops on Reactor on whatever thread they run.
 */
class FallbackMarkTests {

    private static Flux<Boolean> marked() {
        return Flux.deferContextual(
                (view) -> Flux.just(FallbackMark.mark(CallContext.background(), view).hasFallback()));
    }

    @Nested
    class OnTheThread {

        @Test
        void marksAContextStartedWhileTheCallRuns() {
            assertThat(FallbackMark.call(() -> FallbackMark.mark(CallContext.background()).hasFallback())).isTrue();
        }

        @Test
        void marksNoContextOutsideACall() {
            FallbackMark.call(() -> null);

            assertThat(FallbackMark.mark(CallContext.background()).hasFallback()).isFalse();
        }

        @Test
        void staysAfterANestedCallEnds() {
            boolean marked = FallbackMark.call(() -> {
                FallbackMark.call(() -> null);
                return FallbackMark.mark(CallContext.background()).hasFallback();
            });

            assertThat(marked).isTrue();
        }

        @Test
        void keepsTheCancellationOfTheContextItMarks() {
            CallContext call = CallContext.cancellable();
            CallContext marked = FallbackMark.call(() -> FallbackMark.mark(call));

            call.cancel();

            assertThat(marked.failure()).isPresent();
        }
    }

    @Nested
    class OnReactor {

        @Test
        void marksALoopThatRunsOnAnotherThread() {
            Flux<Boolean> elsewhere = marked().subscribeOn(Schedulers.parallel());

            assertThat(FallbackMark.stream(() -> elsewhere).blockLast(Duration.ofSeconds(5))).isTrue();
        }

        @Test
        void marksALoopThatStartsAfterAWaitOnATimer() {
            Flux<Boolean> later = Mono.delay(Duration.ofMillis(1)).thenMany(marked());

            assertThat(FallbackMark.stream(() -> later).blockLast(Duration.ofSeconds(5))).isTrue();
        }

        @Test
        void marksNoLoopOfAStreamWithoutIt() {
            assertThat(marked().subscribeOn(Schedulers.parallel()).blockLast(Duration.ofSeconds(5))).isFalse();
        }

        @Test
        void marksALoopThatStartsOnTheSubscribingThread() {
            Flux<Boolean> onThread = Flux.defer(
                    () -> Flux.just(FallbackMark.mark(CallContext.background()).hasFallback()));

            assertThat(FallbackMark.stream(() -> onThread).blockLast(Duration.ofSeconds(5))).isTrue();
        }
    }
}
