package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.fixtures.FixedRandom;
import java.math.BigInteger;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class BackoffTests {

    /** The longest duration there is. */
    private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

    private static final Policy TWO_STABLE = new Policy(2, Duration.ofMillis(100), 10, Duration.ofSeconds(1));

    @Nested
    class Slot {

        @ParameterizedTest(name = "after attempt {0}: {1} ms")
        @CsvSource({ "1, 100", "2, 100", "3, 200", "4, 400", "5, 800", "6, 1000", "7, 1000", "100, 1000",
                "2147483646, 1000", "2147483647, 1000" })
        void waitsStableDelayThenDoublesUpToMaxDelay(int failedAttempt, long millis) {
            assertThat(Backoff.slot(TWO_STABLE, failedAttempt)).isEqualTo(Duration.ofMillis(millis));
        }

        @ParameterizedTest(name = "after attempt {0}: {1} ms")
        @CsvSource({ "1, 200", "2, 400", "3, 800", "4, 1600", "5, 3200", "6, 5000", "7, 5000" })
        void startsDoublingAtOnceWithoutStableRetries(int failedAttempt, long millis) {
            Policy policy = new Policy(0, Duration.ofMillis(100), 10, Duration.ofSeconds(5));
            assertThat(Backoff.slot(policy, failedAttempt)).isEqualTo(Duration.ofMillis(millis));
        }

        @Test
        void reachesMaxDelayExactlyWhenADoublingEqualsIt() {
            Policy policy = new Policy(0, Duration.ofMillis(250), 10, Duration.ofSeconds(1));
            assertThat(Backoff.slot(policy, 2)).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        void staysAtStableDelayWhenMaxDelayEqualsIt() {
            Policy policy = new Policy(0, Duration.ofSeconds(1), 10, Duration.ofSeconds(1));
            assertThat(Backoff.slot(policy, 1)).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        void staysStableForEveryAttemptWhenAlmostAllRetriesAreStable() {
            Policy policy = new Policy(Integer.MAX_VALUE - 1, Duration.ofSeconds(1), Integer.MAX_VALUE, LONGEST);
            assertThat(Backoff.slot(policy, Integer.MAX_VALUE - 1)).isEqualTo(Duration.ofSeconds(1));
            assertThat(Backoff.slot(policy, Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(2));
        }

        @ParameterizedTest(name = "after attempt {0}")
        @ValueSource(ints = { 62, 63, 64, 92 })
        void doublesPast292YearsWhenMaxDelayAllowsIt(int failedAttempt) {
            Policy policy = new Policy(0, Duration.ofNanos(1), Integer.MAX_VALUE, LONGEST);
            BigInteger nanos = BigInteger.ONE.shiftLeft(failedAttempt);
            assertThat(Backoff.slot(policy, failedAttempt)).isEqualTo(duration(nanos));
        }

        @ParameterizedTest(name = "after attempt {0}")
        @ValueSource(ints = { 93, 126, 127, 128, 1_000, Integer.MAX_VALUE - 1, Integer.MAX_VALUE })
        void capsAtTheLongestDurationWithoutOverflow(int failedAttempt) {
            Policy policy = new Policy(0, Duration.ofNanos(1), Integer.MAX_VALUE, LONGEST);
            assertThat(Backoff.slot(policy, failedAttempt)).isEqualTo(LONGEST);
        }

        @Test
        void capsAHugeMaxDelayOfWholeSeconds() {
            Policy policy = new Policy(0, Duration.ofSeconds(1), Integer.MAX_VALUE, Duration.ofSeconds(Long.MAX_VALUE));
            assertThat(Backoff.slot(policy, Integer.MAX_VALUE - 1)).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
        }

        @Test
        void doublesToJustBelowAMaxDelayThatIsOneNanosecondLongerThanTheDoubling() {
            Policy policy = new Policy(0, Duration.ofMillis(100), 10, Duration.ofMillis(200).plusNanos(1));
            assertThat(Backoff.slot(policy, 1)).isEqualTo(Duration.ofMillis(200));
        }

        @Test
        void doublesUnderAMaxDelayJustPastTheLongestCountOfNanoseconds() {
            Duration max = Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L, 999_999_999);
            Policy policy = new Policy(0, Duration.ofSeconds(1), 10, max);
            assertThat(Backoff.slot(policy, 1)).isEqualTo(Duration.ofSeconds(2));
            assertThat(Backoff.slot(policy, 9)).isEqualTo(Duration.ofSeconds(512));
        }

        @ParameterizedTest
        @ValueSource(ints = { 0, -1, Integer.MIN_VALUE })
        void refusesAttemptsBelowOne(int failedAttempt) {
            assertThatIllegalArgumentException().isThrownBy(() -> Backoff.slot(TWO_STABLE, failedAttempt))
                .withMessage("failedAttempt must be at least 1, was " + failedAttempt);
        }

        @Test
        void refusesANullPolicy() {
            assertThatNullPointerException().isThrownBy(() -> Backoff.slot(null, 1))
                .withMessage("policy must not be null");
        }
    }

    /**
     * Invariants of the slot and the delay over many random policies and attempts. The generator is seeded, so
     * that a failing case is reproduced by running the test again.
     */
    @Nested
    class Invariants {

        private static final long SEED = 0x5EED_2026_1129L;

        private static final int CASES = 1_000;

        @ParameterizedTest(name = "[{index}] {0}, attempt {1}")
        @MethodSource("dev.inference.retry.BackoffTests#randomCases")
        void holdsItsInvariants(Policy policy, int failedAttempt) {
            Duration slot = Backoff.slot(policy, failedAttempt);
            assertThat(slot).as("stableDelay <= slot <= maxDelay").isBetween(policy.stableDelay(), policy.maxDelay());
            assertThat(Backoff.slot(policy, failedAttempt + 1)).as("the slot after the next attempt")
                .isGreaterThanOrEqualTo(slot);
            assertThat(slot).as("the formula in unbounded integers").isEqualTo(exactSlot(policy, failedAttempt));
            // Scaling goes through a double (whole seconds beyond 292 years): allow a relative 2^-30.
            BigInteger nanos = nanos(slot);
            BigInteger slack = nanos.shiftRight(30).add(BigInteger.ONE);
            BigInteger tenth = nanos.divide(BigInteger.TEN);
            assertThat(nanos(Backoff.delay(policy, failedAttempt, Backoff.MIN_JITTER, null))).as("delay at jitter 0.9")
                .isBetween(nanos.subtract(tenth).subtract(slack), nanos.add(slack));
            assertThat(nanos(Backoff.delay(policy, failedAttempt, Math.nextDown(Backoff.MAX_JITTER), null)))
                .as("delay at the largest jitter below 1.1")
                .isBetween(nanos.subtract(slack), nanos.add(tenth).add(slack));
        }
    }

    static Stream<Arguments> randomCases() {
        SplittableRandom random = new SplittableRandom(Invariants.SEED);
        return Stream.generate(() -> randomCase(random)).limit(Invariants.CASES);
    }

    private static Arguments randomCase(SplittableRandom random) {
        int maxAttempts = random.nextBoolean() ? random.nextInt(1, 100) : random.nextInt(1, Integer.MAX_VALUE);
        int stableRetries = random.nextInt(0, maxAttempts);
        Duration stableDelay = switch (random.nextInt(3)) {
            case 0 -> Duration.ofNanos(random.nextLong(1, 1_000_000_000L));
            case 1 -> Duration.ofSeconds(random.nextLong(1, 100_000), random.nextInt(1_000_000_000));
            default -> Duration.ofSeconds(random.nextLong(1, Long.MAX_VALUE / 4), random.nextInt(1_000_000_000));
        };
        Duration maxDelay;
        try {
            maxDelay = switch (random.nextInt(3)) {
                case 0 -> stableDelay;
                case 1 -> stableDelay.multipliedBy(random.nextLong(1, 1L << 20)).plusNanos(random.nextLong(1_000_000_000L));
                default -> LONGEST;
            };
        }
        catch (ArithmeticException beyondTheLongestDuration) {
            maxDelay = LONGEST;
        }
        int failedAttempt = switch (random.nextInt(3)) {
            // Around the end of the stable leg and through the doublings, where the slot changes.
            case 0, 1 -> (int) Math.min((long) stableRetries + random.nextInt(-3, 130), Integer.MAX_VALUE - 1);
            default -> random.nextInt(1, Integer.MAX_VALUE);
        };
        return Arguments.of(new Policy(stableRetries, stableDelay, maxAttempts, maxDelay), Math.max(failedAttempt, 1));
    }

    /** The slot by its definition, in unbounded integers. */
    private static Duration exactSlot(Policy policy, int failedAttempt) {
        if (failedAttempt <= policy.stableRetries()) {
            return policy.stableDelay();
        }
        // 2^200 ns is beyond every Duration: computing larger powers would only take memory.
        int exponent = Math.min(failedAttempt - policy.stableRetries(), 200);
        BigInteger slot = nanos(policy.stableDelay()).shiftLeft(exponent);
        return (slot.compareTo(nanos(policy.maxDelay())) >= 0) ? policy.maxDelay() : duration(slot);
    }

    private static BigInteger nanos(Duration duration) {
        return BigInteger.valueOf(duration.getSeconds())
            .multiply(BigInteger.valueOf(1_000_000_000L))
            .add(BigInteger.valueOf(duration.getNano()));
    }

    private static Duration duration(BigInteger nanos) {
        BigInteger[] secondsAndNanos = nanos.divideAndRemainder(BigInteger.valueOf(1_000_000_000L));
        return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
    }

    @Nested
    class Delay {

        private final Policy policy = new Policy(0, Duration.ofMillis(500), 5, Duration.ofSeconds(10));

        @Test
        void isTheSlotWithAJitterOfOne() {
            assertThat(Backoff.delay(this.policy, 1, 1.0, null)).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        void acceptsTheSmallestJitterInclusive() {
            assertThat(Backoff.delay(this.policy, 1, 0.9, null)).isEqualTo(Duration.ofMillis(900));
        }

        @Test
        void acceptsTheLargestJitterBelowTheExclusiveBound() {
            assertThat(Backoff.delay(this.policy, 1, Math.nextDown(1.1), null)).isEqualTo(Duration.ofNanos(1_099_999_999));
        }

        @ParameterizedTest(name = "jitter {0}")
        @ValueSource(doubles = { 1.1, 0.8999999999999999, 0.0, -1.0, 2.0, Double.NaN, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY })
        void refusesAJitterOutsideTheRange(double jitter) {
            assertThatIllegalArgumentException().isThrownBy(() -> Backoff.delay(this.policy, 1, jitter, null))
                .withMessage("jitter must be in [0.9, 1.1), was " + jitter);
        }

        @Test
        void takesALongerRetryAfter() {
            assertThat(Backoff.delay(this.policy, 1, 1.0, Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
        }

        @Test
        void ignoresAShorterRetryAfter() {
            assertThat(Backoff.delay(this.policy, 1, 1.0, Duration.ofMillis(999))).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        void takesARetryAfterLongerThanTheJitteredSlotEvenWhenShorterThanMaxDelay() {
            assertThat(Backoff.delay(this.policy, 1, 0.9, Duration.ofMillis(901))).isEqualTo(Duration.ofMillis(901));
        }

        @ParameterizedTest(name = "Retry-After {0}")
        @ValueSource(strings = { "PT0S", "PT-1S", "PT-0.000000001S" })
        void ignoresANonPositiveRetryAfter(Duration retryAfter) {
            assertThat(Backoff.delay(this.policy, 1, 1.0, retryAfter)).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        void takesARetryAfterOfExactlyTheCap() {
            assertThat(Backoff.delay(this.policy, 1, 1.0, Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
        }

        @ParameterizedTest(name = "Retry-After {0}")
        @ValueSource(strings = { "PT5M0.000000001S", "PT1H", "PT2562047788015215H30M7.999999999S" })
        void capsALongerRetryAfterAtFiveMinutes(Duration retryAfter) {
            assertThat(Backoff.delay(this.policy, 1, 1.0, retryAfter)).isEqualTo(Duration.ofMinutes(5))
                .isEqualTo(Backoff.RETRY_AFTER_CAP);
        }

        @Test
        void keepsASlotLongerThanTheCappedRetryAfter() {
            Policy slow = new Policy(0, Duration.ofMinutes(10), 3, Duration.ofMinutes(10));
            assertThat(Backoff.delay(slow, 1, 1.0, Duration.ofHours(1))).isEqualTo(Duration.ofMinutes(10));
        }

        @Test
        void saturatesTheLongestSlotTimesTheLargestJitter() {
            Policy huge = new Policy(0, Duration.ofSeconds(1), Integer.MAX_VALUE, LONGEST);
            assertThat(Backoff.delay(huge, Integer.MAX_VALUE - 1, Math.nextDown(1.1), null))
                .isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
        }

        @Test
        void scalesTheLongestSlotDownByTheSmallestJitter() {
            Policy huge = new Policy(0, Duration.ofSeconds(1), Integer.MAX_VALUE, Duration.ofSeconds(Long.MAX_VALUE));
            assertThat(Backoff.delay(huge, Integer.MAX_VALUE - 1, 0.9, null))
                .isEqualTo(Duration.ofSeconds((long) (Long.MAX_VALUE * 0.9)));
        }

        @Test
        void scalesASlotJustPastTheLongestCountOfNanosecondsInWholeSeconds() {
            Duration stable = Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L, 999_999_999);
            Policy policy = new Policy(1, stable, 2, stable);
            assertThat(Backoff.delay(policy, 1, 1.0, null)).isEqualTo(Duration.ofSeconds(stable.getSeconds()));
        }

        @Test
        void refusesAttemptsBelowOne() {
            assertThatIllegalArgumentException().isThrownBy(() -> Backoff.delay(this.policy, 0, 1.0, null))
                .withMessage("failedAttempt must be at least 1, was 0");
        }
    }

    @Nested
    class JitterRule {

        @Test
        void drawsTheSmallestFactorFromZero() {
            assertThat(Backoff.jitter(FixedRandom.always(0.0))).isEqualTo(0.9);
        }

        @Test
        void drawsOneFromTheMiddle() {
            assertThat(Backoff.jitter(FixedRandom.noJitter())).isEqualTo(1.0);
        }

        @Test
        void staysBelowTheBoundForTheLargestDoubleBelowOne() {
            assertThat(Backoff.jitter(FixedRandom.always(Math.nextDown(1.0)))).isLessThan(1.1);
        }

        @Test
        void spreadsASlotFromTheShortestDelayToItsBound() {
            Policy policy = new Policy(0, Duration.ofMillis(100), 4, Duration.ofSeconds(1));

            assertThat(Backoff.shortestDelay(policy, 2)).isEqualTo(Duration.ofMillis(360))
                .isEqualTo(Backoff.delay(policy, 2, Backoff.MIN_JITTER, null));
            assertThat(Backoff.delayBound(policy, 2)).isEqualTo(Duration.ofMillis(440))
                .isGreaterThan(Backoff.delay(policy, 2, Math.nextDown(Backoff.MAX_JITTER), null));
        }
    }
}
