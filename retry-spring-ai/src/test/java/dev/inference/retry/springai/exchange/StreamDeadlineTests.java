package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.time.DeadlineTimer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The one deadline of a stream's attempt with both a first-token and an idle timeout, in virtual time:
 * it ends the attempt when the first-token timeout passes, whichever of the two is shorter, and serves
 * the idle watch once the content has begun, so that a stream that succeeds adds one deadline to the
 * timer.
 */
class StreamDeadlineTests {

    private static final Duration IDLE = Duration.ofSeconds(10);

    private final ManualTimer timer = new ManualTimer();

    private final Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
        .name("model")
        .timer(this.timer)
        .build();

    private final StreamDeadline deadline = new StreamDeadline(this.timer, IDLE);

    private final AtomicInteger closes = new AtomicInteger();

    @Test
    void aStreamWhoseContentBeginsAddsOneDeadlineToTheTimer() throws IOException {
        AttemptScope scope = start(Duration.ofSeconds(30));
        IdleWatchedStream watched = watch();
        scope.close();

        watched.readAllBytes();

        assertThat(this.timer.scheduled()).isOne();
        assertThat(this.timer.pending()).isZero();
    }

    @Test
    void endsTheAttemptWhenAFirstTokenTimeoutShorterThanTheIdleTimeoutPasses() {
        AttemptScope scope = start(Duration.ofSeconds(4));

        this.timer.advance(Duration.ofSeconds(4));

        assertThat(scope.timedOut()).isTrue();
    }

    @Test
    void endsTheAttemptWhenAFirstTokenTimeoutLongerThanTheIdleTimeoutPassesAndNotBefore() {
        AttemptScope scope = start(Duration.ofSeconds(25));

        this.timer.advance(Duration.ofSeconds(10));
        this.timer.advance(Duration.ofSeconds(10));
        boolean before = scope.timedOut();
        this.timer.advance(Duration.ofSeconds(5));

        assertThat(before).isFalse();
        assertThat(scope.timedOut()).isTrue();
    }

    @Test
    void endsAStreamSilentForTheIdleTimeoutOnceItsWatchTookItOver() {
        AttemptScope scope = start(Duration.ofSeconds(30));
        this.timer.advance(Duration.ofSeconds(3));
        watch();
        scope.close();

        this.timer.advance(Duration.ofSeconds(7));
        int closedAtTheFirstCheck = this.closes.get();
        this.timer.advance(Duration.ofSeconds(3));

        assertThat(closedAtTheFirstCheck).isZero();
        assertThat(this.closes).hasValue(1);
        assertThat(scope.timedOut()).isFalse();
    }

    @Test
    void endsAStreamSilentForTheIdleTimeoutWhoseContentBeganAfterTheFirstCheckWaitedAgain() {
        AttemptScope scope = start(Duration.ofSeconds(60));
        this.timer.advance(Duration.ofSeconds(10));
        this.timer.advance(Duration.ofSeconds(5));
        watch();
        scope.close();

        this.timer.advance(Duration.ofSeconds(5));
        this.timer.advance(Duration.ofSeconds(5));

        assertThat(this.closes).hasValue(1);
    }

    @Test
    void isWithdrawnWhenTheScopeClosesBeforeAnyWatch() {
        AttemptScope scope = start(Duration.ofSeconds(30));

        scope.close();

        assertThat(this.timer.pending()).isZero();
    }

    @Test
    void staysWithTheWatchWhenTheScopeClosesAfterIt() {
        AttemptScope scope = start(Duration.ofSeconds(30));
        watch();

        scope.close();

        assertThat(this.timer.pending()).isOne();
    }

    @Test
    void leavesAWatchStartedAfterTheFirstTokenTimeoutPassedToScheduleItsOwn() {
        start(Duration.ofSeconds(4));
        this.timer.advance(Duration.ofSeconds(4));

        watch();
        this.timer.advance(IDLE);

        assertThat(this.timer.scheduled()).isEqualTo(2);
        assertThat(this.closes).hasValue(1);
    }

    @Test
    void abandonsTheAttemptWhenTheTimerClosesBeforeTheContentBegan() {
        DeadlineTimer closing = new DeadlineTimer("stream-deadline-test");
        AttemptScope scope = CallContext.background()
            .startAttempt(Duration.ofSeconds(60), new StreamDeadline(closing, IDLE));

        closing.close();

        assertThat(scope.timedOut()).isTrue();
    }

    @Test
    void leavesAWatchWithAShorterIdleTimeoutThanItWasMadeForToScheduleItsOwn() {
        start(Duration.ofSeconds(30));

        IdleWatchedStream.watch(new byte[0], 0, new ByteArrayInputStream(new byte[0]), IDLE.dividedBy(2),
                this.retrier, this.closes::incrementAndGet, this.deadline);

        assertThat(this.timer.scheduled()).isEqualTo(2);
    }

    @Test
    void timesOneScopeOnly() {
        start(Duration.ofSeconds(30));

        assertThatIllegalStateException().isThrownBy(() -> this.deadline.schedule(Duration.ofSeconds(30), () -> {
        })).withMessageContaining("one scope");
    }

    private AttemptScope start(Duration firstToken) {
        return CallContext.background().startAttempt(firstToken, this.deadline);
    }

    /** Starts the idle watch of a stream whose first event was read, and whose rest is one more event. */
    private IdleWatchedStream watch() {
        byte[] first = "data: first\n\n".getBytes(StandardCharsets.UTF_8);
        return IdleWatchedStream.watch(first, first.length,
                new ByteArrayInputStream("data: second\n\n".getBytes(StandardCharsets.UTF_8)), IDLE, this.retrier,
                this.closes::incrementAndGet, this.deadline);
    }
}
