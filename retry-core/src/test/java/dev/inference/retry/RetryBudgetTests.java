package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.RecordingListener;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.fixtures.RecordingListener.Exhausted;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryBudgetTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    private static final Policy THREE_ATTEMPTS = new Policy(2, Duration.ofMillis(1), 3, Duration.ofMillis(1));

    private static RetryBudget budget(int maxTokens, String tokenRatio) {
        return RetryBudget.of(maxTokens, new BigDecimal(tokenRatio));
    }

    private static void fail(RetryBudget budget, int times) {
        for (int i = 0; i < times; i++) {
            budget.failedRetryably();
        }
    }

    @Nested
    class Validation {

        @ParameterizedTest
        @ValueSource(ints = { 1, 10, 1000 })
        void acceptsABucketFromOneToAThousandTokens(int maxTokens) {
            assertThat(budget(maxTokens, "0.1").maxTokens()).isEqualTo(maxTokens);
        }

        @ParameterizedTest
        @ValueSource(ints = { Integer.MIN_VALUE, -1, 0, 1001 })
        void refusesABucketOutsideOneToAThousand(int maxTokens) {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> budget(maxTokens, "0.1"))
                .withMessage("maxTokens = " + maxTokens + " is invalid: must be an integer from 1 to 1000");
        }

        @ParameterizedTest
        @ValueSource(strings = { "0.001", "0.5", "1", "1.000", "0.100" })
        void acceptsARatioAboveZeroUpToOneInThousandths(String ratio) {
            assertThat(budget(10, ratio).tokenRatio()).isEqualByComparingTo(ratio);
        }

        @ParameterizedTest
        @ValueSource(strings = { "0", "0.000", "-0.1", "1.001", "2" })
        void refusesARatioOutsideZeroToOne(String ratio) {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> budget(10, ratio))
                .withMessageEndingWith("is invalid: must be more than 0 and at most 1")
                .satisfies((ex) -> assertThat(ex.field()).isEqualTo("tokenRatio"));
        }

        @Test
        void refusesARatioFinerThanAThousandth() {
            assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> budget(10, "0.0005"))
                .withMessage("tokenRatio = 0.0005 is invalid: must have at most 3 decimals");
        }
    }

    @Nested
    class Arithmetic {

        @Test
        void startsFull() {
            RetryBudget budget = budget(10, "0.1");

            assertThat(budget.tokens()).isEqualByComparingTo("10");
            assertThat(budget).hasToString("RetryBudget[tokens=10/10, tokenRatio=0.1]");
        }

        @Test
        void allowsARetryWhileAboveHalfAfterTheFailuresToken() {
            RetryBudget budget = budget(10, "0.1");
            fail(budget, 3);

            assertThat(budget.failedRetryably()).isTrue();
            assertThat(budget.tokens()).isEqualByComparingTo("6");
        }

        @Test
        void refusesARetryAtExactlyHalf() {
            RetryBudget budget = budget(10, "0.1");
            fail(budget, 4);

            assertThat(budget.failedRetryably()).isFalse();
            assertThat(budget.tokens()).isEqualByComparingTo("5");
        }

        @Test
        void allowsAboveHalfOfAnOddBucket() {
            RetryBudget budget = budget(5, "0.1");
            fail(budget, 1);

            assertThat(budget.failedRetryably()).isTrue();
            assertThat(budget.tokens()).isEqualByComparingTo("3");
        }

        @Test
        void refusesBelowHalfOfAnOddBucket() {
            RetryBudget budget = budget(5, "0.1");
            fail(budget, 2);

            assertThat(budget.failedRetryably()).isFalse();
            assertThat(budget.tokens()).isEqualByComparingTo("2");
        }

        @Test
        void allowsAgainOnceASuccessLiftsTheBucketAboveHalf() {
            RetryBudget budget = budget(10, "0.1");
            fail(budget, 5);

            budget.succeeded();

            assertThat(budget.tokens()).isEqualByComparingTo("5.1");
            assertThat(budget.allowsRetries()).isTrue();
        }

        @Test
        void neverFallsBelowZero() {
            RetryBudget budget = budget(2, "0.5");
            fail(budget, 5);

            assertThat(budget.tokens()).isEqualByComparingTo("0");
        }

        @Test
        void neverRisesAboveItsSize() {
            RetryBudget budget = budget(10, "0.7");
            fail(budget, 1);

            budget.succeeded();
            budget.succeeded();

            assertThat(budget.tokens()).isEqualByComparingTo("10");
        }
    }

    @Nested
    class InACall {

        private final ScriptedClient inner = ScriptedClient.script();

        private final RecordingListener listener = new RecordingListener();

        private RetryClient client(RetryBudget budget, Policy policy) {
            return RetryClient.of(this.inner, Retrier.builder(policy)
                .name("chat")
                .budget(budget)
                .listener(this.listener)
                .sleeper((delay, context) -> {
                })
                .build());
        }

        @Test
        void endsTheCallWhenTheBudgetRefusesARetry() {
            RetryBudget budget = budget(2, "0.1");
            NetworkException reset = new NetworkException("reset", null);
            this.inner.thenFail(reset).thenRespond("never asked");

            Throwable thrown = catchThrowable(() -> client(budget, THREE_ATTEMPTS).invoke(REQUEST, CallContext.background()));

            assertThat(thrown).isInstanceOf(RetryBudgetExhaustedException.class)
                .hasMessageStartingWith("Retry budget refused a retry after 1 attempt: ")
                .hasCause(reset);
            assertThat(((ExhaustedException) thrown).attempts()).isEqualTo(1);
            assertThat(this.inner.attempts()).isEqualTo(1);
            assertThat(this.listener.calls()).last()
                .isEqualTo(new Exhausted(new AttemptEvent("chat", Operation.INVOKE, 1, reset, true),
                        (ExhaustedException) thrown));
        }

        @Test
        void leavesTheBucketAloneOnAPermanentFailure() {
            RetryBudget budget = budget(10, "0.1");
            this.inner.thenFail(new HttpStatusException(400, "bad request", null));

            assertThat(catchThrowable(() -> client(budget, THREE_ATTEMPTS).invoke(REQUEST, CallContext.background())))
                .isInstanceOf(HttpStatusException.class);

            assertThat(budget.tokens()).isEqualByComparingTo("10");
        }

        @Test
        void reportsAnExhaustionOfAttemptsBeforeARefusalOfTheBudget() {
            RetryBudget budget = budget(1, "0.1");
            this.inner.thenFail(new NetworkException("reset", null));

            Throwable thrown = catchThrowable(() -> client(budget, new Policy(0, Duration.ofMillis(1), 1,
                    Duration.ofMillis(1))).invoke(REQUEST, CallContext.background()));

            assertThat(thrown).isExactlyInstanceOf(ExhaustedException.class);
            assertThat(budget.tokens()).isEqualByComparingTo("0");
        }

        @Test
        void returnsTokensForARetriedSuccess() {
            RetryBudget budget = budget(10, "0.5");
            this.inner.thenFail(new NetworkException("reset", null)).thenRespond("hello");

            client(budget, THREE_ATTEMPTS).invoke(REQUEST, CallContext.background());

            assertThat(budget.tokens()).isEqualByComparingTo("9.5");
        }
    }

    @Nested
    class Simulation {

        /**
         * 10,000 calls at a 50% failure rate per attempt, three attempts each, in virtual time: a
         * retry is made only while the bucket is above half, so the retries can never exceed the
         * bucket's upper half plus what the successes returned.
         */
        @ParameterizedTest
        @CsvSource({ "10, 0.1, 1", "10, 0.1, 42", "100, 0.01, 7", "3, 0.5, 99" })
        void keepsRetriesWithinTheBoundOfGrpcsThrottling(int maxTokens, String tokenRatio, long seed) {
            Tally tally = Tally.simulate(budget(maxTokens, tokenRatio), 10_000, 0.5, seed);

            BigDecimal bound = BigDecimal.valueOf(maxTokens)
                .divide(BigDecimal.valueOf(2))
                .add(new BigDecimal(tokenRatio).multiply(BigDecimal.valueOf(tally.successes())));
            assertThat(BigDecimal.valueOf(tally.retries())).isLessThanOrEqualTo(bound);
            assertThat(tally.attempts()).isEqualTo(10_000 + tally.retries());
        }

        @Test
        void stopsRetryingOnceTheBucketFallsToHalf() {
            RetryBudget budget = budget(10, "0.1");

            Tally tally = Tally.simulate(budget, 10_000, 0.5, 1);

            assertThat(tally.refusals()).isPositive();
            assertThat(budget.allowsRetries()).isEqualTo(budget.tokens().compareTo(BigDecimal.valueOf(5)) > 0);
        }

        @Test
        void retriesFarLessThanWithoutABudget() {
            Tally with = Tally.simulate(budget(10, "0.1"), 10_000, 0.5, 1);
            Tally without = Tally.simulate(null, 10_000, 0.5, 1);

            assertThat(with.retries()).isLessThan(without.retries() / 4);
        }
    }

    /** What a simulated run made. */
    record Tally(int attempts, int retries, int successes, int exhausted, int refusals) {

        static Tally simulate(RetryBudget budget, int calls, double failureRate, long seed) {
            FlakyClient inner = new FlakyClient(new SplittableRandom(seed), failureRate);
            Retrier.Builder builder = Retrier.builder(THREE_ATTEMPTS)
                .random(FixedRandom.noJitter())
                .sleeper((delay, context) -> {
                });
            if (budget != null) {
                builder.budget(budget);
            }
            RetryClient client = RetryClient.of(inner, builder.build());
            int successes = 0;
            int exhausted = 0;
            int refusals = 0;
            for (int call = 0; call < calls; call++) {
                Throwable thrown = catchThrowable(() -> client.invoke(REQUEST, CallContext.background()));
                if (thrown == null) {
                    successes++;
                }
                else if (thrown instanceof RetryBudgetExhaustedException) {
                    refusals++;
                }
                else {
                    exhausted++;
                }
            }
            int[] attempts = { inner.attempts };
            return new Tally(attempts[0], attempts[0] - calls, successes, exhausted, refusals);
        }
    }

    /** Fails each attempt with a 503 at the given rate, from a seeded generator. */
    private static final class FlakyClient implements InferenceClient {

        private final SplittableRandom random;

        private final double failureRate;

        private int attempts;

        FlakyClient(SplittableRandom random, double failureRate) {
            this.random = random;
            this.failureRate = failureRate;
        }

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            this.attempts++;
            if (this.random.nextDouble() < this.failureRate) {
                throw new HttpStatusException(503, "overloaded", null);
            }
            return InferenceResponse.of("ok");
        }

        @Override
        public StreamReader stream(InferenceRequest request, CallContext context) {
            throw new UnsupportedOperationException("The simulation makes unary calls only");
        }
    }
}
