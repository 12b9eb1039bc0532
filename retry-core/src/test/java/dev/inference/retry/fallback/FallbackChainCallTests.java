package dev.inference.retry.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.inference.failure.HttpStatusException;
import dev.inference.fixtures.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A call of a {@link FallbackChain} driven step by step, as a stream that falls over asynchronously
 * drives it.
 */
class FallbackChainCallTests {

    private final MutableClock clock = MutableClock.atStart();

    private final AtomicReference<Duration> thirdCooling = new AtomicReference<>(Duration.ZERO);

    private FallbackChain chain() {
        return FallbackChain.builder("chat")
            .member("a")
            .member("b")
            .member("c", this.thirdCooling::get)
            .clock(this.clock)
            .build();
    }

    @Test
    void givesTheMembersInOrderWhileTheyFallOver() {
        FallbackChain.Call call = chain().start(FallbackReason::of);

        assertThat(call.next()).isZero();
        assertThat(call.hasFallback()).isTrue();
        assertThat(call.fellOver(new HttpStatusException(401, "no", null))).isTrue();
        assertThat(call.next()).isEqualTo(1);
        assertThat(call.fellOver(new HttpStatusException(403, "no", null))).isTrue();
        assertThat(call.next()).isEqualTo(2);
        assertThat(call.hasFallback()).isFalse();
        assertThat(call.fellOver(new HttpStatusException(404, "no", null))).isTrue();
        assertThat(call.next()).isEqualTo(-1);
        assertThat(call.exhausted().attempts()).isEqualTo(3);
    }

    @Test
    void tellsTheCallerToEndWithAFailureThatDoesNotFallOver() {
        FallbackChain.Call call = chain().start(FallbackReason::of);
        call.next();

        assertThat(call.fellOver(new HttpStatusException(400, "bad", null))).isFalse();
    }

    @Test
    void saysAMemberHasNoFallbackWhenEveryLaterMemberIsSkipped() {
        this.thirdCooling.set(Duration.ofSeconds(10));
        FallbackChain.Call call = chain().start(FallbackReason::of);
        call.next();
        call.fellOver(new HttpStatusException(401, "no", null));

        assertThat(call.next()).isEqualTo(1);
        assertThat(call.hasFallback()).isFalse();
    }

    @Test
    void refusesToTellOfAnAnswerBeforeAMemberIsGiven() {
        assertThatIllegalStateException().isThrownBy(() -> chain().start(FallbackReason::of).answered());
    }

    @Test
    void refusesToBeExhaustedBeforeAnyMemberFellOver() {
        assertThatIllegalStateException().isThrownBy(() -> chain().start(FallbackReason::of).exhausted());
    }
}
