package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.RecordingListener.CooldownSet;
import dev.inference.fixtures.RecordingListener.Delayed;
import dev.inference.fixtures.RecordingListener.Finished;
import dev.inference.fixtures.RecordingListener.Scheduled;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.ScriptedReader;
import dev.inference.fixtures.VirtualSleeper;
import dev.inference.retry.cooldown.CooldownReason;
import dev.inference.retry.cooldown.CooldownSetEvent;
import dev.inference.retry.cooldown.LocalCooldownStore;
import dev.inference.retry.time.ShutdownSignal;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clients that share a {@link LocalCooldownStore}, in virtual time: the store's clock is the clock
 * that the sleeper advances.
 */
class RetryClientCooldownTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private final MutableClock clock = MutableClock.atStart();

    private final VirtualSleeper sleeper = new VirtualSleeper(this.clock);

    private final LocalCooldownStore store = LocalCooldownStore.withClock(
            () -> Duration.between(MutableClock.START, this.clock.instant()).toNanos());

    private final RecordingListener listener = new RecordingListener();

    private final List<Instant> attemptTimes = new ArrayList<>();

    private Retrier.Builder retrier(String name, String key) {
        return Retrier.builder(THREE_ATTEMPTS)
            .name(name)
            .random(FixedRandom.noJitter())
            .sleeper(this.sleeper)
            .listener(this.listener)
            .cooldown(this.store, key);
    }

    private ScriptedClient respondingAt(List<Instant> times) {
        return ScriptedClient.script().then((context) -> {
            times.add(this.clock.instant());
            return InferenceResponse.of("ok");
        });
    }

    @Test
    void delaysTheFirstAttemptOfAnotherClientOfTheSameAccount() {
        ScriptedClient throttled = ScriptedClient.script()
            .thenFail(new HttpStatusException(429, "slow down", Duration.ofSeconds(2)));
        RetryClient first = RetryClient.of(throttled, Retrier.builder(new Policy(0, Duration.ofMillis(1), 1,
                Duration.ofMillis(1)))
            .name("first")
            .cooldown(this.store, "openai")
            .build());
        assertThatExceptionOfType(ExhaustedException.class)
            .isThrownBy(() -> first.invoke(REQUEST, CallContext.background()));
        RetryClient second = RetryClient.of(respondingAt(this.attemptTimes), retrier("second", "openai").build());

        second.invoke(REQUEST, CallContext.background());

        assertThat(this.attemptTimes).containsExactly(MutableClock.START.plusSeconds(2));
        assertThat(this.listener.calls()).first().isEqualTo(
                new Delayed(new CooldownEvent("second", Operation.INVOKE, 1, "openai", Duration.ofSeconds(2))));
    }

    @Test
    void leavesTheClientsOfOtherAccountsAlone() {
        this.store.coolDown("openai", Duration.ofSeconds(2));
        RetryClient other = RetryClient.of(respondingAt(this.attemptTimes), retrier("other", "anthropic").build());

        other.invoke(REQUEST, CallContext.background());

        assertThat(this.attemptTimes).containsExactly(MutableClock.START);
    }

    @Test
    void waitsForTheLaterOfTheBackoffAndTheCooldown() {
        NetworkException reset = new NetworkException("reset", null);
        ScriptedClient inner = ScriptedClient.script().then((context) -> {
            this.store.coolDown("openai", Duration.ofSeconds(3));
            throw reset;
        }).then((context) -> {
            this.attemptTimes.add(this.clock.instant());
            return InferenceResponse.of("ok");
        });

        RetryClient.of(inner, retrier("chat", "openai").build()).invoke(REQUEST, CallContext.background());

        assertThat(this.attemptTimes).containsExactly(MutableClock.START.plusSeconds(3));
        assertThat(this.sleeper.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(2900));
        assertThat(this.listener.calls()).contains(new Scheduled(
                new AttemptEvent("chat", Operation.INVOKE, 1, reset, true), Duration.ofMillis(100)));
    }

    @Test
    void coolsTheKeyForTheCappedRetryAfterOfARetryableFailure() {
        ScriptedClient inner = ScriptedClient.script()
            .thenFail(new HttpStatusException(503, "overloaded", Duration.ofHours(1)))
            .thenRespond("ok");
        RetryClient client = RetryClient.of(inner, retrier("chat", "openai").build());

        client.invoke(REQUEST, CallContext.background());

        assertThat(this.sleeper.delays()).containsExactly(Duration.ofMinutes(5));
        assertThat(this.clock.instant()).isEqualTo(MutableClock.START.plus(Duration.ofMinutes(5)));
    }

    @Test
    void doesNotCoolTheKeyForAPermanentFailure() {
        ScriptedClient inner = ScriptedClient.script()
            .thenFail(new HttpStatusException(400, "bad request", Duration.ofSeconds(30)));

        assertThatExceptionOfType(HttpStatusException.class)
            .isThrownBy(() -> RetryClient.of(inner, retrier("chat", "openai").build())
                .invoke(REQUEST, CallContext.background()));
        assertThat(this.store.remaining("openai")).isZero();
    }

    @Test
    void endsTheCallAtOnceAndCoolsNothingForAUsedUpQuota() {
        QuotaExceededException quota = new QuotaExceededException(429, "insufficient_quota", "Check your billing.");
        ScriptedClient inner = ScriptedClient.script().thenFail(quota).thenRespond("ok");

        assertThatExceptionOfType(QuotaExceededException.class)
            .isThrownBy(() -> RetryClient.of(inner, retrier("chat", "openai").build())
                .invoke(REQUEST, CallContext.background()))
            .isSameAs(quota);
        assertThat(inner.attempts()).isEqualTo(1);
        assertThat(this.store.remaining("openai")).isZero();
        assertThat(this.listener.calls()).containsExactly(
                new Finished(new AttemptEvent("chat", Operation.INVOKE, 1, quota, false)));
    }

    @ParameterizedTest(name = "deadline in {0} s")
    @ValueSource(ints = { 10, 20 })
    void failsAtOnceWhenTheDeadlineFallsInsideOrAtTheEndOfTheCooldown(int deadlineSeconds) {
        this.store.coolDown("openai", Duration.ofSeconds(20));
        ScriptedClient inner = ScriptedClient.script().thenRespond("never asked");

        assertThatExceptionOfType(DeadlineExceededException.class)
            .isThrownBy(() -> RetryClient.of(inner, retrier("chat", "openai").build())
                .invoke(REQUEST, CallContext.withTimeout(Duration.ofSeconds(deadlineSeconds), this.clock)))
            .withMessage("The call's deadline would pass during the PT20S cool-down wait before attempt 1");
        assertThat(inner.attempts()).isZero();
        assertThat(this.sleeper.delays()).isEmpty();
    }

    @Test
    void endsTheCallWhenTheCallerCancelsDuringTheCooldown() {
        this.store.coolDown("openai", Duration.ofSeconds(20));
        ScriptedClient inner = ScriptedClient.script().thenRespond("never asked");
        CallContext context = CallContext.cancellable();
        RetryClient client = RetryClient.of(inner,
                retrier("chat", "openai").sleeper((delay, waiting) -> waiting.cancel()).build());

        assertThatExceptionOfType(CancellationException.class).isThrownBy(() -> client.invoke(REQUEST, context));
        assertThat(inner.attempts()).isZero();
    }

    @Test
    void endsTheCallWhenTheApplicationShutsDownDuringTheCooldown() {
        this.store.coolDown("openai", Duration.ofSeconds(20));
        ShutdownSignal signal = ShutdownSignal.create();
        ScriptedClient inner = ScriptedClient.script().thenRespond("never asked");
        RetryClient client = RetryClient.of(inner, retrier("chat", "openai").shutdownSignal(signal)
            .sleeper((delay, waiting) -> signal.shutDown())
            .build());

        assertThatExceptionOfType(ShutdownException.class)
            .isThrownBy(() -> client.invoke(REQUEST, CallContext.background()))
            .withMessage("The application is shutting down: the cool-down wait before attempt 1 was ended");
        assertThat(inner.attempts()).isZero();
    }

    @Test
    void reportsTheSuccessOfAnAttemptThatACooldownDelayed() {
        this.store.coolDown("openai", Duration.ofSeconds(1));
        RetryClient client = RetryClient.of(ScriptedClient.script().thenRespond("ok"),
                retrier("chat", "openai").build());

        assertThat(client.invoke(REQUEST, CallContext.background()).attempts()).isEqualTo(1);
        assertThat(this.listener.calls()).last()
            .isEqualTo(new Finished(new AttemptEvent("chat", Operation.INVOKE, 1, null, false)));
    }

    @Nested
    class RateLimitHeaders {

        private final InferenceResponse exhausted = InferenceResponse.of("ok").withRateLimitedFor(Duration.ofSeconds(2));

        @Test
        void holdsTheAccountsOtherClientsOffUntilTheResetOfASuccessfulResponse() {
            RetryClient first = RetryClient.of(ScriptedClient.script().then((context) -> this.exhausted),
                    retrier("first", "openai").build());
            RetryClient second = RetryClient.of(respondingAt(attemptTimes), retrier("second", "openai").build());

            first.invoke(REQUEST, CallContext.background());
            second.invoke(REQUEST, CallContext.background());

            assertThat(attemptTimes).containsExactly(MutableClock.START.plusSeconds(2));
            assertThat(listener.calls()).contains(new CooldownSet(
                    new CooldownSetEvent("first", "openai", Duration.ofSeconds(2), CooldownReason.RATE_LIMIT)));
        }

        @Test
        void holdsTheAccountOffAfterASuccessThatFollowedAFailure() {
            ScriptedClient inner = ScriptedClient.script()
                .thenFail(new NetworkException("reset", null))
                .then((context) -> this.exhausted);

            RetryClient.of(inner, retrier("chat", "openai").build()).invoke(REQUEST, CallContext.background());

            assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(2));
            assertThat(store.reason("openai")).contains(CooldownReason.RATE_LIMIT);
        }

        @Test
        void holdsTheAccountOffUntilTheResetOfAnEstablishedStream() {
            StreamReader reader = ScriptedReader.completing("Hel", "lo").rateLimitedFor(Duration.ofSeconds(3));
            RetryClient client = RetryClient.of(ScriptedClient.script().thenOpen(reader),
                    retrier("chat", "openai").build());

            try (StreamReader stream = client.stream(REQUEST, CallContext.background())) {
                assertThat(stream.rateLimitedFor()).contains(Duration.ofSeconds(3));
            }

            assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(3));
        }

        @Test
        void holdsTheAccountOffUntilTheResetOfAPermanentFailure() {
            ScriptedClient inner = ScriptedClient.script()
                .thenFail(new HttpStatusException(400, "bad request", null, Duration.ofSeconds(4)));

            assertThatExceptionOfType(HttpStatusException.class)
                .isThrownBy(() -> RetryClient.of(inner, retrier("chat", "openai").build())
                    .invoke(REQUEST, CallContext.background()));

            assertThat(store.remaining("openai")).isEqualTo(Duration.ofSeconds(4));
        }

        @Test
        void waitsForTheResetOfARetryableFailureBeforeItsRetry() {
            ScriptedClient inner = ScriptedClient.script()
                .thenFail(new HttpStatusException(503, "overloaded", null, Duration.ofSeconds(3)))
                .then((context) -> {
                    attemptTimes.add(clock.instant());
                    return InferenceResponse.of("ok");
                });

            RetryClient.of(inner, retrier("chat", "openai").build()).invoke(REQUEST, CallContext.background());

            assertThat(attemptTimes).containsExactly(MutableClock.START.plusSeconds(3));
            assertThat(sleeper.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(2900));
        }

        @Test
        void setsBothCooldownsOfAFailureWithARetryAfterAndAnExhaustedLimit() {
            ScriptedClient inner = ScriptedClient.script()
                .thenFail(new HttpStatusException(429, "slow down", Duration.ofSeconds(1), Duration.ofSeconds(6)))
                .thenRespond("ok");

            RetryClient.of(inner, retrier("chat", "openai").build()).invoke(REQUEST, CallContext.background());

            assertThat(listener.calls()).filteredOn(CooldownSet.class::isInstance).containsExactly(
                    new CooldownSet(new CooldownSetEvent("chat", "openai", Duration.ofSeconds(1),
                            CooldownReason.RETRY_AFTER)),
                    new CooldownSet(new CooldownSetEvent("chat", "openai", Duration.ofSeconds(6),
                            CooldownReason.RATE_LIMIT)));
            assertThat(clock.instant()).isEqualTo(MutableClock.START.plusSeconds(6));
        }

        @Test
        void ignoresTheRateLimitWhenNotHonoured() {
            RetryClient client = RetryClient.of(ScriptedClient.script().then((context) -> this.exhausted),
                    retrier("chat", "openai").honourRateLimits(false).build());

            client.invoke(REQUEST, CallContext.background());

            assertThat(store.remaining("openai")).isZero();
            assertThat(listener.calls()).noneMatch(CooldownSet.class::isInstance);
        }

        @Test
        void returnsTheResponseWithItsRateLimit() {
            RetryClient client = RetryClient.of(ScriptedClient.script().then((context) -> this.exhausted),
                    Retrier.builder(THREE_ATTEMPTS).build());

            assertThat(client.invoke(REQUEST, CallContext.background()).rateLimitedFor())
                .contains(Duration.ofSeconds(2));
        }
    }
    @Nested
    class ReleaseSpread {

        private Retrier.Builder spreadOverOneSecond(double drawn) {
            return retrier("chat", "openai").random(FixedRandom.always(drawn)).cooldownReleaseSpread(Duration.ofSeconds(1));
        }

        @ParameterizedTest(name = "drawn {0}")
        @ValueSource(doubles = { 0.0, 0.25, 0.999 })
        void makesTheAttemptOfAHeldCallAtTheDrawnShareOfTheSpreadAfterTheCooldown(double drawn) {
            store.coolDown("openai", Duration.ofSeconds(2));
            RetryClient client = RetryClient.of(respondingAt(attemptTimes), spreadOverOneSecond(drawn).build());

            client.invoke(REQUEST, CallContext.background());

            Duration share = Duration.ofNanos((long) (drawn * 1_000_000_000L));
            assertThat(attemptTimes).containsExactly(MutableClock.START.plusSeconds(2).plus(share));
            assertThat(listener.calls()).first().isEqualTo(new Delayed(
                    new CooldownEvent("chat", Operation.INVOKE, 1, "openai", Duration.ofSeconds(2).plus(share))));
        }

        @Test
        void leavesACallThatNoCooldownHoldsUndelayed() {
            RetryClient client = RetryClient.of(respondingAt(attemptTimes), spreadOverOneSecond(0.5).build());

            client.invoke(REQUEST, CallContext.background());

            assertThat(attemptTimes).containsExactly(MutableClock.START);
            assertThat(sleeper.delays()).isEmpty();
        }

        @Test
        void spreadsTheRetryThatACooldownOutlastingItsBackoffHolds() {
            ScriptedClient inner = ScriptedClient.script().then((context) -> {
                store.coolDown("openai", Duration.ofSeconds(3));
                throw new NetworkException("reset", null);
            }).then((context) -> {
                attemptTimes.add(clock.instant());
                return InferenceResponse.of("ok");
            });

            RetryClient.of(inner, spreadOverOneSecond(0.5).build()).invoke(REQUEST, CallContext.background());

            assertThat(attemptTimes).containsExactly(MutableClock.START.plusMillis(3500));
        }

        @Test
        void makesTheAttemptAtTheCooldownsEndWhenTheDeadlineFallsInTheSpread() {
            store.coolDown("openai", Duration.ofSeconds(2));
            RetryClient client = RetryClient.of(respondingAt(attemptTimes), spreadOverOneSecond(0.5).build());

            client.invoke(REQUEST, CallContext.withTimeout(Duration.ofMillis(2300), clock));

            assertThat(attemptTimes).containsExactly(MutableClock.START.plusSeconds(2));
        }

        @Test
        void holdsACallThatANewCooldownMeetsAtItsReleaseUntilThatOneEnds() {
            store.coolDown("openai", Duration.ofSeconds(2));
            Sleeper coolingAgainOnce = new Sleeper() {

                private boolean cooled;

                @Override
                public void sleep(Duration delay, CallContext context) {
                    sleeper.sleep(delay, context);
                    if (!this.cooled) {
                        this.cooled = true;
                        store.coolDown("openai", Duration.ofSeconds(2));
                    }
                }
            };
            RetryClient client = RetryClient.of(respondingAt(attemptTimes),
                    spreadOverOneSecond(0.5).sleeper(coolingAgainOnce).build());

            client.invoke(REQUEST, CallContext.background());

            assertThat(sleeper.delays()).containsExactly(Duration.ofMillis(2500), Duration.ofMillis(2500));
            assertThat(attemptTimes).containsExactly(MutableClock.START.plusSeconds(5));
        }
    }
}
