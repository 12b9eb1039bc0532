package dev.inference.retry.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.CapturedLog;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.ScriptedReader;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.retry.ConfigException;
import dev.inference.retry.CoolingDownException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.FallbackExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudget;
import dev.inference.retry.RetryClient;
import dev.inference.retry.StampedStreamReader;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chain of two or three retried clients, in virtual time: the sleeper advances the clock that the
 * cool-down store and the chain's skip rule read, so "answered at once" means "no virtual time passed".
 */
class FallbackClientTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Three attempts, 100 ms then 200 ms apart. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    @RegisterExtension
    final CapturedLog log = CapturedLog.of(FallbackChain.class);

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    private final LocalCooldownStore store = LocalCooldownStore.withClock(
            () -> Duration.between(MutableClock.START, this.clock.instant()).toNanos());

    private final Events events = new Events();

    private RetryClient retried(String name, InferenceClient inner) {
        return RetryClient.of(inner, Retrier.builder(THREE_ATTEMPTS)
            .name(name)
            .random(FixedRandom.noJitter())
            .sleeper(this.sleeper)
            .cooldown(this.store, name)
            .build());
    }

    private FallbackClient.Builder chain(InferenceClient first, InferenceClient second) {
        return FallbackClient.builder("chat")
            .member("openai", first)
            .member("anthropic", second)
            .clock(this.clock)
            .listener(this.events);
    }

    private static HttpStatusException unavailable() {
        return new HttpStatusException(503, "unavailable", null);
    }

    @Nested
    class FallsOver {

        @Test
        void whenTheFirstMemberIsExhausted() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unavailable(), unavailable(), unavailable());
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("from anthropic");

            InferenceResponse response = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from anthropic");
            assertThat(response.attempts()).isEqualTo(4);
            assertThat(FallbackClientTests.this.events.fellOver).singleElement()
                .satisfies((event) -> assertThat(event.member()).isEqualTo("openai"))
                .satisfies((event) -> assertThat(event.reason()).isEqualTo(FallbackReason.EXHAUSTED))
                .satisfies((event) -> assertThat(event.failure()).isInstanceOf(ExhaustedException.class));
            assertThat(FallbackClientTests.this.events.answeredBy).containsExactly(Optional.of("anthropic"));
        }

        @Test
        void atOnceWhenTheAccountHasNoQuotaLeft() {
            ScriptedClient openai = ScriptedClient.script()
                .thenFail(new QuotaExceededException(429, "insufficient_quota", "no quota"));
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("from anthropic");

            InferenceResponse response = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from anthropic");
            assertThat(openai.attempts()).isEqualTo(1);
            assertThat(FallbackClientTests.this.sleeper.delays()).isEmpty();
            assertThat(FallbackClientTests.this.events.reasons()).containsExactly(FallbackReason.QUOTA);
        }

        @ParameterizedTest
        @ValueSource(ints = { 401, 403, 404 })
        void atOnceWhenTheAccountOrModelIsRefused(int status) {
            ScriptedClient openai = ScriptedClient.script().thenFail(new HttpStatusException(status, "refused", null));
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("from anthropic");

            InferenceResponse response = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from anthropic");
            assertThat(response.attempts()).isEqualTo(2);
            assertThat(openai.attempts()).isEqualTo(1);
            assertThat(FallbackClientTests.this.events.reasons()).containsExactly(FallbackReason.ACCOUNT);
        }

        @Test
        void whenTheRetryBudgetRefusesARetry() {
            RetryClient openai = RetryClient.of(ScriptedClient.script().thenFail(unavailable()),
                    Retrier.builder(THREE_ATTEMPTS)
                        .name("openai")
                        .sleeper(FallbackClientTests.this.sleeper)
                        .budget(RetryBudget.of(1, new java.math.BigDecimal("0.1")))
                        .build());

            chain(openai, ScriptedClient.script().thenRespond("ok")).build().invoke(REQUEST);

            assertThat(FallbackClientTests.this.events.reasons()).containsExactly(FallbackReason.BUDGET);
        }

        @Test
        void logsEachFallOverOnceAtWarnWithTheChainTheMemberAndTheReason() {
            ScriptedClient openai = ScriptedClient.script().thenFail(new HttpStatusException(401, "bad key", null));

            chain(openai, ScriptedClient.script().thenRespond("ok")).build().invoke(REQUEST);

            assertThat(FallbackClientTests.this.log.records()).singleElement()
                .satisfies((record) -> assertThat(record.getLevel()).isEqualTo(Level.WARNING))
                .extracting(LogRecord::getMessage)
                .asString()
                .contains("'chat'", "'openai'", "(account)", "bad key");
        }
    }

    @Nested
    class DoesNotFallOver {

        static Stream<RuntimeException> failuresOfTheCall() {
            return Stream.of(new HttpStatusException(400, "bad request", null),
                    new HttpStatusException(422, "unprocessable", null), new CancellationException("cancelled"),
                    new DeadlineExceededException("late"), new ShutdownException("going away"),
                    new IllegalStateException("a bug"));
        }

        @ParameterizedTest
        @MethodSource("failuresOfTheCall")
        void andRethrowsTheFailureUnchanged(RuntimeException failure) {
            ScriptedClient openai = ScriptedClient.script().thenFail(failure);
            ScriptedClient anthropic = ScriptedClient.script();

            assertThatThrownBy(() -> chain(retried("openai", openai), anthropic).build().invoke(REQUEST))
                .isSameAs(failure);
            assertThat(anthropic.attempts()).isZero();
            assertThat(FallbackClientTests.this.events.fellOver).isEmpty();
        }

        @Test
        void onAnError() {
            StackOverflowError error = new StackOverflowError();
            ScriptedClient anthropic = ScriptedClient.script();

            assertThatThrownBy(() -> chain(ScriptedClient.script().thenFail(error), anthropic).build().invoke(REQUEST))
                .isSameAs(error);
            assertThat(anthropic.attempts()).isZero();
        }

        @Test
        void whenTheCallerCancelledBeforeTheCall() {
            CallContext context = CallContext.cancellable();
            context.cancel();
            ScriptedClient anthropic = ScriptedClient.script();

            assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> chain(
                    retried("openai", ScriptedClient.script()), retried("anthropic", anthropic)).build()
                .invoke(REQUEST, context));
            assertThat(anthropic.attempts()).isZero();
        }
    }

    @Nested
    class EveryMemberFailing {

        @Test
        void throwsFallbackExhaustedWithTheLastFailureAsCauseAndTheEarlierSuppressed() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unavailable(), unavailable(), unavailable());
            HttpStatusException forbidden = new HttpStatusException(403, "forbidden", null);
            ScriptedClient anthropic = ScriptedClient.script().thenFail(forbidden);

            FallbackExhaustedException thrown = org.junit.jupiter.api.Assertions.assertThrows(
                    FallbackExhaustedException.class,
                    () -> chain(retried("openai", openai), retried("anthropic", anthropic)).build().invoke(REQUEST));

            assertThat(thrown).isInstanceOf(ExhaustedException.class)
                .hasCause(forbidden)
                .hasMessageStartingWith("Fallback chain 'chat' fell over from every member after 4 attempts");
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(ExhaustedException.class);
            assertThat(thrown.attempts()).isEqualTo(4);
            assertThat(thrown.chain()).isEqualTo("chat");
            assertThat(FallbackClientTests.this.events.answeredBy).containsExactly(Optional.empty());
        }
    }

    @Nested
    class Cooling {

        private ScriptedClient askingToWait(Duration retryAfter) {
            return ScriptedClient.script().thenFail(new HttpStatusException(429, "slow down", retryAfter));
        }

        @Test
        void abandonsAMemberAskedToWaitAtOnceAndSkipsItWhileItCools() {
            ScriptedClient openai = askingToWait(Duration.ofSeconds(30)).thenRespond("from openai");
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("first").thenRespond("second");
            FallbackClient chain = chain(retried("openai", openai), retried("anthropic", anthropic)).build();

            InferenceResponse first = chain.invoke(REQUEST);
            InferenceResponse second = chain.invoke(REQUEST);

            assertThat(first.output()).isEqualTo("first");
            assertThat(second.output()).isEqualTo("second");
            assertThat(openai.attempts()).isEqualTo(1);
            assertThat(FallbackClientTests.this.clock.instant()).isBefore(MutableClock.START.plusSeconds(2));
            assertThat(FallbackClientTests.this.sleeper.delays()).isEmpty();
            assertThat(FallbackClientTests.this.events.reasons()).containsExactly(FallbackReason.COOLING,
                    FallbackReason.SKIPPED);
            assertThat(FallbackClientTests.this.events.fellOver.get(0).failure())
                .isInstanceOfSatisfying(CoolingDownException.class,
                        (cooling) -> assertThat(cooling.refusedWait()).isEqualTo(Duration.ofSeconds(30)));
        }

        @Test
        void triesTheMemberAgainOnceItsCooldownEnds() {
            ScriptedClient openai = askingToWait(Duration.ofSeconds(30)).thenRespond("from openai");
            FallbackClient chain = chain(retried("openai", openai),
                    retried("anthropic", ScriptedClient.script().thenRespond("first"))).build();
            chain.invoke(REQUEST);

            FallbackClientTests.this.clock.advance(Duration.ofSeconds(30));

            assertThat(chain.invoke(REQUEST).output()).isEqualTo("from openai");
        }

        @Test
        void waitsOnItsOwnBackoffScheduleWithoutFallingOver() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unavailable()).thenRespond("from openai");
            ScriptedClient anthropic = ScriptedClient.script();

            InferenceResponse response = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from openai");
            assertThat(FallbackClientTests.this.sleeper.delays()).containsExactly(Duration.ofMillis(100));
            assertThat(anthropic.attempts()).isZero();
        }

        @Test
        void waitsForTheRetryAfterWhenEveryLaterMemberIsSkipped() {
            FallbackClientTests.this.store.coolDown("anthropic", Duration.ofSeconds(60));
            ScriptedClient openai = askingToWait(Duration.ofSeconds(30)).thenRespond("from openai");

            InferenceResponse response = chain(retried("openai", openai),
                    retried("anthropic", ScriptedClient.script())).build().invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from openai");
            assertThat(FallbackClientTests.this.clock.instant()).isEqualTo(MutableClock.START.plusSeconds(30));
        }

        @Test
        void callsTheMemberWhoseCooldownEndsFirstWhenEveryMemberIsSkipped() {
            FallbackClientTests.this.store.coolDown("openai", Duration.ofSeconds(20));
            FallbackClientTests.this.store.coolDown("anthropic", Duration.ofSeconds(5));
            ScriptedClient openai = ScriptedClient.script();
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("from anthropic");

            InferenceResponse response = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .invoke(REQUEST);

            assertThat(response.output()).isEqualTo("from anthropic");
            assertThat(openai.attempts()).isZero();
            assertThat(FallbackClientTests.this.clock.instant()).isEqualTo(MutableClock.START.plusSeconds(5));
        }

        @Test
        void marksTheContextWithAFallbackOnlyWhileALaterMemberIsFree() {
            ScriptedClient openai = ScriptedClient.script().thenFail(new HttpStatusException(401, "no", null));
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("ok");
            CallContext context = CallContext.cancellable();

            chain(openai, anthropic).build().invoke(REQUEST, context);

            assertThat(openai.contexts()).singleElement().satisfies((each) -> assertThat(each.hasFallback()).isTrue());
            assertThat(anthropic.contexts()).containsExactly(context);
        }
    }

    @Nested
    class SkipAfter {

        private FallbackClient skippingAfterTwo(ScriptedClient openai, ScriptedClient anthropic) {
            return chain(openai, anthropic).skip(2, Duration.ofMinutes(1)).build();
        }

        private static HttpStatusException unauthorized() {
            return new HttpStatusException(401, "unauthorized", null);
        }

        @Test
        void skipsAMemberThatFellOverOnThatManyCallsInARow() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unauthorized(), unauthorized());
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("1").thenRespond("2").thenRespond("3");
            FallbackClient chain = skippingAfterTwo(openai, anthropic);

            chain.invoke(REQUEST);
            chain.invoke(REQUEST);
            chain.invoke(REQUEST);

            assertThat(openai.attempts()).isEqualTo(2);
            assertThat(chain.chain().status().get(0).skippedUntil())
                .contains(MutableClock.START.plus(Duration.ofMinutes(1)));
        }

        @Test
        void triesItAgainAfterSkipForAndASuccessEndsTheSkipping() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unauthorized(), unauthorized())
                .thenRespond("back").thenFail(unauthorized()).thenRespond("still there");
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("1").thenRespond("2").thenRespond("3");
            FallbackClient chain = skippingAfterTwo(openai, anthropic);
            chain.invoke(REQUEST);
            chain.invoke(REQUEST);

            FallbackClientTests.this.clock.advance(Duration.ofMinutes(1));

            assertThat(chain.invoke(REQUEST).output()).isEqualTo("back");
            assertThat(chain.invoke(REQUEST).output()).isEqualTo("3");
            assertThat(chain.invoke(REQUEST).output()).isEqualTo("still there");
        }

        @Test
        void neverSkipsWithoutTheRule() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unauthorized(), unauthorized(), unauthorized());
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("1").thenRespond("2").thenRespond("3");
            FallbackClient chain = chain(openai, anthropic).build();

            chain.invoke(REQUEST);
            chain.invoke(REQUEST);
            chain.invoke(REQUEST);

            assertThat(openai.attempts()).isEqualTo(3);
        }
    }

    @Nested
    class Models {

        @Test
        void givesAMemberACopyOfTheRequestWithItsOwnModel() {
            ScriptedClient openai = ScriptedClient.script().thenFail(new HttpStatusException(404, "no model", null));
            ScriptedClient anthropic = ScriptedClient.script().thenRespond("ok");

            chain(openai, anthropic).model("anthropic", "claude-test").build().invoke(REQUEST);

            assertThat(openai.requests()).containsExactly(REQUEST);
            assertThat(anthropic.requests()).containsExactly(InferenceRequest.of("claude-test", "Say hello"));
        }
    }

    @Nested
    class Streams {

        @Test
        void fallOverBeforeEstablishment() {
            ScriptedClient openai = ScriptedClient.script().thenFail(unavailable(), unavailable(), unavailable());
            ScriptedReader reader = ScriptedReader.completing("hello");
            ScriptedClient anthropic = ScriptedClient.script().thenOpen(reader);

            StreamReader stream = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .stream(REQUEST);

            assertThat(stream.hasNext()).isTrue();
            assertThat(stream.next().data()).isEqualTo("hello");
            assertThat(stream.hasNext()).isFalse();
            assertThat(stream.result().attempts()).isEqualTo(4);
        }

        @Test
        void passTheReaderThroughOnceEarlierMembersFellOver() {
            ScriptedClient openai = ScriptedClient.script().thenFail(new HttpStatusException(401, "no", null));
            ScriptedReader reader = ScriptedReader.completing("hi").rateLimitedFor(Duration.ofSeconds(3));
            ScriptedClient anthropic = ScriptedClient.script().thenOpen(reader);
            FallbackClient chain = chain(openai, anthropic).build();

            StreamReader stream = chain.stream(REQUEST);

            assertThat(stream.rateLimitedFor()).contains(Duration.ofSeconds(3));
            assertThat(stream).hasToString("StampedStreamReader[earlierAttempts=1, delegate=" + reader + "]");
            stream.close();
            assertThat(reader.closes()).isEqualTo(1);
            assertThat(chain).hasToString("FallbackClient[name=chat, members=[openai, anthropic]]");
        }

        @Test
        void neverFallOverOnceEstablished() {
            NetworkException reset = new NetworkException("reset", null);
            ScriptedClient openai = ScriptedClient.script().thenOpen(ScriptedReader.failingAfter(reset, "hel"));
            ScriptedClient anthropic = ScriptedClient.script();

            StreamReader stream = chain(retried("openai", openai), retried("anthropic", anthropic)).build()
                .stream(REQUEST);

            assertThat(stream.next().data()).isEqualTo("hel");
            assertThatThrownBy(stream::hasNext).isSameAs(reset);
            assertThat(anthropic.attempts()).isZero();
            assertThat(FallbackClientTests.this.events.fellOver).isEmpty();
        }

        @Test
        void abandonAMemberAskedToWaitBeforeEstablishment() {
            ScriptedClient openai = ScriptedClient.script()
                .thenFail(new HttpStatusException(429, "slow down", Duration.ofSeconds(30)));
            ScriptedClient anthropic = ScriptedClient.script().thenOpen(ScriptedReader.completing("hi"));

            chain(retried("openai", openai), retried("anthropic", anthropic)).build().stream(REQUEST);

            assertThat(FallbackClientTests.this.clock.instant()).isEqualTo(MutableClock.START);
            assertThat(FallbackClientTests.this.events.reasons()).containsExactly(FallbackReason.COOLING);
        }
    }

    @Nested
    class Refusals {

        @Test
        void aChainOfOneMember() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> FallbackClient.builder("chat").member("a", ScriptedClient.script()).build())
                .withMessageContaining("at least two members");
        }

        @Test
        void aMemberNamedTwice() {
            FallbackClient.Builder builder = FallbackClient.builder("chat").member("a", ScriptedClient.script());

            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> builder.member("a", ScriptedClient.script()))
                .withMessageContaining("names 'a' twice");
        }

        @Test
        void aModelForNoMember() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> FallbackClient.builder("chat")
                .member("a", ScriptedClient.script())
                .member("b", ScriptedClient.script())
                .model("c", "gpt")
                .build()).withMessageContaining("models.c");
        }

        @ParameterizedTest
        @ValueSource(ints = { 0, -1 })
        void aSkipAfterBelowOne(int after) {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> FallbackClient.builder("chat").skip(after, Duration.ofSeconds(1)))
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("skip-after"));
        }

        @Test
        void aSkipForThatIsNotPositive() {
            assertThatExceptionOfType(ConfigException.class)
                .isThrownBy(() -> FallbackClient.builder("chat").skip(1, Duration.ZERO))
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("skip-for"));
        }
    }

    /** Records what the chain tells its listener. */
    static final class Events implements FallbackListener {

        final List<FallbackEvent> fellOver = new CopyOnWriteArrayList<>();

        final List<Optional<String>> answeredBy = new CopyOnWriteArrayList<>();

        @Override
        public void fellOver(FallbackEvent event) {
            this.fellOver.add(event);
        }

        @Override
        public void callEnded(FallbackCallEvent event) {
            this.answeredBy.add(event.answeredBy());
        }

        List<FallbackReason> reasons() {
            return this.fellOver.stream().map(FallbackEvent::reason).toList();
        }
    }
}
