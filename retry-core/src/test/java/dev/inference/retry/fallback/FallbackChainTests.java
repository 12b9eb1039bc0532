package dev.inference.retry.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.inference.failure.HttpStatusException;
import dev.inference.fixtures.CapturedLog;
import dev.inference.fixtures.MutableClock;
import dev.inference.retry.CoolingDownException;
import dev.inference.retry.ExhaustedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rules of {@link FallbackChain} that the clients' tests do not reach: a call when every member
 * is skipped, the members' status, the listeners that throw, and the logs.
 */
class FallbackChainTests {

    @RegisterExtension
    final CapturedLog log = CapturedLog.of(FallbackChain.class);

    private final MutableClock clock = MutableClock.atStart();

    private final AtomicReference<Duration> firstCooling = new AtomicReference<>(Duration.ZERO);

    private final AtomicReference<Duration> secondCooling = new AtomicReference<>(Duration.ZERO);

    private final FallbackClientTests.Events events = new FallbackClientTests.Events();

    private FallbackChain.Builder builder() {
        return FallbackChain.builder("chat")
            .member("a", this.firstCooling::get)
            .member("b", this.secondCooling::get)
            .clock(this.clock)
            .listener(this.events);
    }

    private static HttpStatusException unauthorized() {
        return new HttpStatusException(401, "no", null);
    }

    @Nested
    class EveryMemberSkipped {

        @Test
        void callsTheMemberWhoseCooldownEndsFirstWithoutAFallbackAndNoOtherAfterIt() {
            firstCooling.set(Duration.ofSeconds(20));
            secondCooling.set(Duration.ofSeconds(5));
            FallbackChain.Call call = builder().build().start(FallbackReason::of);

            assertThat(call.next()).isEqualTo(1);
            assertThat(call.hasFallback()).isFalse();
            assertThat(events.fellOver).singleElement()
                .satisfies((event) -> assertThat(event.member()).isEqualTo("a"))
                .satisfies((event) -> assertThat(event.reason()).isEqualTo(FallbackReason.SKIPPED));
            assertThat(call.fellOver(unauthorized())).isTrue();
            assertThat(call.next()).isEqualTo(-1);
        }

        @Test
        void callsTheFirstOfThoseWhoseCooldownsEndTogether() {
            firstCooling.set(Duration.ofSeconds(5));
            secondCooling.set(Duration.ofSeconds(5));

            assertThat(builder().build().start(FallbackReason::of).next()).isZero();
        }

        @Test
        void callsOneWhenEveryMemberCameToBeSkippedAfterTheCallStarted() {
            FallbackChain.Call call = builder().build().start(FallbackReason::of);
            firstCooling.set(Duration.ofSeconds(9));
            secondCooling.set(Duration.ofSeconds(3));

            assertThat(call.next()).isEqualTo(1);
        }

        @Test
        void refusesToTellOfAnAnswerOnceNoMemberIsLeft() {
            FallbackChain.Call call = builder().build().start(FallbackReason::of);
            call.next();
            call.fellOver(unauthorized());
            call.next();
            call.fellOver(unauthorized());
            assertThat(call.next()).isEqualTo(-1);

            assertThatIllegalStateException().isThrownBy(call::answered);
        }
    }

    @Nested
    class Attempts {

        @Test
        void sumTheAttemptsOfEveryMemberThatFellOver() {
            FallbackChain.Call call = builder().build().start(FallbackReason::of);
            call.next();
            call.fellOver(new CoolingDownException(2, Duration.ofSeconds(30), unauthorized()));
            call.next();
            call.fellOver(new ExhaustedException(3, unauthorized()));

            assertThat(call.attempts()).isEqualTo(5);
            assertThat(call.exhausted().attempts()).isEqualTo(5);
        }
    }

    @Nested
    class Status {

        @Test
        void namesTheChainAndItsMembers() {
            FallbackChain chain = builder().build();

            assertThat(chain.name()).isEqualTo("chat");
            assertThat(chain.members()).containsExactly("a", "b");
            assertThat(chain).hasToString("FallbackChain[name=chat, members=[a, b]]");
        }

        @Test
        void saysWhichMembersAreSkippedAndUntilWhen() {
            FallbackChain chain = builder().skip(1, Duration.ofMinutes(1)).build();
            secondCooling.set(Duration.ofSeconds(10));
            FallbackChain.Call call = chain.start(FallbackReason::of);
            call.next();
            call.fellOver(unauthorized());

            List<FallbackChain.MemberStatus> status = chain.status();

            assertThat(status.get(0).skipped()).isTrue();
            assertThat(status.get(0).skippedUntil()).contains(MutableClock.START.plus(Duration.ofMinutes(1)));
            assertThat(status.get(0).coolingUntil()).isEmpty();
            assertThat(status.get(1).skipped()).isTrue();
            assertThat(status.get(1).skippedUntil()).isEmpty();
            assertThat(status.get(1).coolingUntil()).contains(MutableClock.START.plusSeconds(10));
        }

        @Test
        void saysNoMemberIsSkippedOnceTheSkipEnds() {
            FallbackChain chain = builder().skip(1, Duration.ofMinutes(1)).build();
            FallbackChain.Call call = chain.start(FallbackReason::of);
            call.next();
            call.fellOver(unauthorized());

            clock.advance(Duration.ofMinutes(1));

            assertThat(chain.status()).noneMatch(FallbackChain.MemberStatus::skipped);
        }
    }

    @Nested
    class Logs {

        @Test
        void aMemberSkippedWhileItsAccountCoolsAtWarnWithUntilWhen() {
            firstCooling.set(Duration.ofSeconds(10));

            builder().build().start(FallbackReason::of).next();

            assertThat(log.records()).singleElement()
                .satisfies((record) -> assertThat(record.getLevel()).isEqualTo(Level.WARNING))
                .extracting(LogRecord::getMessage)
                .isEqualTo("Fallback chain 'chat' fell over from member 'a' (skipped): its provider account cools down "
                        + "until " + MutableClock.START.plusSeconds(10));
        }

        @Test
        void aMemberSkippedBySkipAfterAtWarnWithUntilWhen() {
            FallbackChain chain = builder().skip(1, Duration.ofMinutes(1)).build();
            FallbackChain.Call first = chain.start(FallbackReason::of);
            first.next();
            first.fellOver(unauthorized());

            chain.start(FallbackReason::of).next();

            assertThat(log.records()).last()
                .satisfies((record) -> assertThat(record.getLevel()).isEqualTo(Level.WARNING))
                .extracting(LogRecord::getMessage)
                .isEqualTo("Fallback chain 'chat' fell over from member 'a' (skipped): skip-after holds it until "
                        + MutableClock.START.plus(Duration.ofMinutes(1)));
        }

        @Test
        void aMemberSkippedForBothReasonsAtWarnWithBoth() {
            FallbackChain chain = builder().skip(1, Duration.ofMinutes(1)).build();
            FallbackChain.Call first = chain.start(FallbackReason::of);
            first.next();
            first.fellOver(unauthorized());
            firstCooling.set(Duration.ofSeconds(10));

            chain.start(FallbackReason::of).next();

            assertThat(log.records()).last().extracting(LogRecord::getMessage).asString()
                .endsWith("(skipped): skip-after holds it until " + MutableClock.START.plus(Duration.ofMinutes(1))
                        + ", and its provider account cools down until " + MutableClock.START.plusSeconds(10));
        }

        @Test
        void aListenerThatThrowsAtWarnWithoutChangingTheCall() {
            FallbackListener throwing = new FallbackListener() {

                @Override
                public void fellOver(FallbackEvent event) {
                    throw new IllegalStateException("listener broke");
                }

                @Override
                public void callEnded(FallbackCallEvent event) {
                    throw new IllegalStateException("listener broke");
                }

                @Override
                public String toString() {
                    return "Throwing";
                }
            };
            firstCooling.set(Duration.ofSeconds(10));
            FallbackChain.Call call = builder().listener(throwing).build().start(FallbackReason::of);

            assertThat(call.next()).isEqualTo(1);
            assertThat(call.fellOver(unauthorized())).isTrue();
            call.exhausted();

            assertThat(log.records()).extracting(LogRecord::getMessage)
                .contains("FallbackListener Throwing threw from fellOver", "FallbackListener Throwing threw from callEnded");
        }
    }
}
