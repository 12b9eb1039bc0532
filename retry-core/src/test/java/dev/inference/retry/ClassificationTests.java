package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.client.HalfOpenStreamException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.fixtures.ScriptedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClassificationTests {

    @Nested
    class Statuses {

        @ParameterizedTest(name = "HTTP {0}")
        @ValueSource(ints = { 408, 429, 500, 502, 503, 504, 599 })
        void retriesTimeoutsThrottlingAndServerErrors(int status) {
            assertThat(Classification.isRetryable(status(status))).isTrue();
        }

        @ParameterizedTest(name = "HTTP {0}")
        @ValueSource(ints = { 100, 200, 301, 400, 401, 403, 404, 407, 409, 422, 428, 430, 499, 600, 999 })
        void doesNotRetryAnyOtherStatus(int status) {
            assertThat(Classification.isRetryable(status(status))).isFalse();
        }
    }

    @Nested
    class Types {

        @Test
        void retriesANetworkException() {
            assertThat(Classification.isRetryable(new NetworkException("connection reset", null))).isTrue();
        }

        @Test
        void retriesANetworkExceptionCausedByAnIOException() {
            assertThat(Classification.isRetryable(new NetworkException("connection reset", new IOException("reset"))))
                .isTrue();
        }

        @Test
        void doesNotRetryNull() {
            assertThat(Classification.isRetryable(null)).isFalse();
        }

        @Test
        void doesNotRetryACancellation() {
            assertThat(Classification.isRetryable(new CancellationException("cancelled"))).isFalse();
        }

        @Test
        void doesNotRetryAnInterruption() {
            assertThat(Classification.isRetryable(new InterruptedException("interrupted"))).isFalse();
        }

        @Test
        void doesNotRetryAPassedDeadline() {
            assertThat(Classification.isRetryable(new DeadlineExceededException("deadline passed"))).isFalse();
        }

        @Test
        void doesNotRetryAnExhaustedCallEvenOfARetryableFailure() {
            assertThat(Classification.isRetryable(new ExhaustedException(3, status(503)))).isFalse();
        }

        @Test
        void doesNotRetryAnUntypedRuntimeException() {
            assertThat(Classification.isRetryable(new IllegalStateException("bug"))).isFalse();
        }

        @Test
        void doesNotRetryAnUntypedIOFailure() {
            assertThat(Classification.isRetryable(new UncheckedIOException(new IOException("disk full")))).isFalse();
        }

        @Test
        void doesNotRetryAnError() {
            assertThat(Classification.isRetryable(new OutOfMemoryError("heap"))).isFalse();
        }
    }

    @Nested
    class CauseChains {

        @Test
        void doesNotRetryANetworkExceptionCausedByACancellation() {
            NetworkException aborted = new NetworkException("aborted", new CancellationException("cancelled"));
            assertThat(Classification.isRetryable(aborted)).isFalse();
        }

        @Test
        void doesNotRetryANetworkExceptionCausedByAnInterruption() {
            NetworkException aborted = new NetworkException("aborted", new InterruptedException());
            assertThat(Classification.isRetryable(aborted)).isFalse();
        }

        @Test
        void doesNotRetryANetworkExceptionCausedByAPassedDeadline() {
            NetworkException timedOut = new NetworkException("timed out", new DeadlineExceededException("deadline"));
            assertThat(Classification.isRetryable(timedOut)).isFalse();
        }

        @Test
        void doesNotRetryACancellationDeepInTheChain() {
            Throwable chain = new RuntimeException(new NetworkException("reset",
                    new IOException(new RuntimeException(new CancellationException("cancelled")))));
            assertThat(Classification.isRetryable(chain)).isFalse();
        }

        @Test
        void retriesAnUntypedWrapperOfA503() {
            assertThat(Classification.isRetryable(new RuntimeException("wrapped", status(503)))).isTrue();
        }

        @Test
        void retriesAHalfOpenStreamByItsCause() {
            HalfOpenStreamException halfOpen = new HalfOpenStreamException(ScriptedReader.completing(), status(502));
            assertThat(Classification.isRetryable(halfOpen)).isTrue();
        }

        @Test
        void letsTheFirstTypedFailureDecideAgainstALaterRetryableOne() {
            HttpStatusException unauthorized = new HttpStatusException(401, "unauthorized", null);
            unauthorized.initCause(new NetworkException("reset", null));
            assertThat(Classification.isRetryable(new RuntimeException(unauthorized))).isFalse();
        }

        @Test
        void letsTheFirstTypedFailureDecideForALaterPermanentOne() {
            NetworkException reset = new NetworkException("reset", new HttpStatusException(400, "bad request", null));
            assertThat(Classification.isRetryable(reset)).isTrue();
        }

        @Test
        void honoursTheRetryAfterOfTheFirstTypedFailure() {
            HttpStatusException first = new HttpStatusException(429, "slow down", Duration.ofSeconds(7));
            first.initCause(new HttpStatusException(503, "unavailable", Duration.ofSeconds(60)));
            assertThat(Classification.retryAfter(new RuntimeException(first))).contains(Duration.ofSeconds(7));
        }

        @Test
        void honoursNoRetryAfterWhenTheFirstTypedFailureHasNone() {
            NetworkException reset = new NetworkException("reset",
                    new HttpStatusException(503, "unavailable", Duration.ofSeconds(60)));
            assertThat(Classification.retryAfter(reset)).isEmpty();
        }

        @Test
        void honoursNoRetryAfterOfAFailureThatIsNotRetryable() {
            HttpStatusException cancelled = new HttpStatusException(429, "slow down", Duration.ofSeconds(7));
            cancelled.initCause(new CancellationException("cancelled"));
            assertThat(Classification.retryAfter(cancelled)).isEmpty();
        }

        @Test
        void honoursNoRetryAfterOfNull() {
            assertThat(Classification.retryAfter(null)).isEmpty();
        }

        @Test
        void terminatesOnACyclicChainAndStillDecides() {
            CyclicException a = new CyclicException("a");
            CyclicException b = new CyclicException("b");
            CyclicException c = new CyclicException("c");
            HttpStatusException unavailable = new HttpStatusException(503, "unavailable", null);
            a.cause = unavailable;
            unavailable.initCause(b);
            b.cause = c;
            c.cause = unavailable;
            assertThat(Classification.isRetryable(a)).isTrue();
        }

        @Test
        void terminatesOnACyclicChainAndFindsANegativeCaseInTheCycle() {
            CyclicException a = new CyclicException("a");
            CyclicException b = new CyclicException("b");
            NetworkException reset = new NetworkException("reset", b);
            CancellationException cancelled = new CancellationException("cancelled");
            a.cause = reset;
            b.cause = cancelled;
            cancelled.initCause(a);
            assertThat(Classification.isRetryable(a)).isFalse();
        }

        @Test
        void terminatesOnAFailureThatIsItsOwnCause() {
            CyclicException self = new CyclicException("self");
            self.cause = self;
            assertThat(Classification.isRetryable(self)).isFalse();
        }

        @Test
        void terminatesOnALongCycleOfUntypedFailures() {
            CyclicException first = new CyclicException("0");
            CyclicException last = first;
            for (int i = 1; i < 1_000; i++) {
                CyclicException next = new CyclicException(Integer.toString(i));
                last.cause = next;
                last = next;
            }
            last.cause = first;
            assertThat(Classification.isRetryable(first)).isFalse();
        }
    }

    private static HttpStatusException status(int status) {
        return new HttpStatusException(status, "HTTP " + status, null);
    }

    /** A failure whose cause can be set freely, itself included, as some libraries do. */
    private static final class CyclicException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private transient Throwable cause;

        CyclicException(String message) {
            super(message, null, false, false);
        }

        @Override
        public Throwable getCause() {
            return this.cause;
        }
    }

    @Nested
    class Kinds {

        @Test
        void namesTheFirstNegativeCaseEvenAfterATypedFailure() {
            CancellationException cancelled = new CancellationException("caller gave up");
            NetworkException reset = new NetworkException("reset", cancelled);

            Classification classification = Classification.of(reset);

            assertThat(classification.kind()).isEqualTo(Classification.Kind.CANCELLED);
            assertThat(classification.decidingCause()).containsSame(cancelled);
        }

        @Test
        void namesAUsedUpQuotaAnywhereInTheChainAsPermanent() {
            QuotaExceededException quota = new QuotaExceededException(429, "insufficient_quota", "Check your billing.");
            RuntimeException sdk = new IllegalStateException("429: Check your billing.", quota);

            Classification classification = Classification.of(new NetworkException("wrapped", sdk));

            assertThat(classification.kind()).isEqualTo(Classification.Kind.QUOTA);
            assertThat(classification.decidingCause()).containsSame(quota);
            assertThat(classification.isRetryable()).isFalse();
        }

        @Test
        void letsAUsedUpQuotaWinOverTheRetryableStatusBeneathIt() {
            QuotaExceededException quota = new QuotaExceededException(429, "insufficient_quota", "m");
            quota.initCause(new HttpStatusException(429, "too many", Duration.ofSeconds(1), Duration.ofSeconds(2)));

            Classification classification = Classification.of(quota);

            assertThat(classification.kind()).isEqualTo(Classification.Kind.QUOTA);
            assertThat(classification.retryAfter()).isEmpty();
            assertThat(classification.rateLimitedFor()).isEmpty();
        }

        @Test
        void namesAShutdownAsPermanent() {
            ShutdownException shutdown = new ShutdownException("going away");

            Classification classification = Classification.of(new NetworkException("reset", shutdown));

            assertThat(classification.kind()).isEqualTo(Classification.Kind.SHUTDOWN);
            assertThat(classification.isRetryable()).isFalse();
        }

        @Test
        void namesAPassedDeadline() {
            assertThat(Classification.of(new DeadlineExceededException("late")).kind())
                .isEqualTo(Classification.Kind.DEADLINE);
        }

        @Test
        void namesAnExhaustedCallByTheExhaustion() {
            ExhaustedException exhausted = new ExhaustedException(2, new NetworkException("reset", null));

            Classification classification = Classification.of(new IllegalStateException("wrapped", exhausted));

            assertThat(classification.kind()).isEqualTo(Classification.Kind.EXHAUSTED);
            assertThat(classification.decidingCause()).containsSame(exhausted);
        }

        @Test
        void namesTheFirstTypedFailure() {
            HttpStatusException overloaded = new HttpStatusException(503, "overloaded", null);

            Classification classification = Classification.of(new IllegalStateException("wrapped", overloaded));

            assertThat(classification.kind()).isEqualTo(Classification.Kind.HTTP_STATUS);
            assertThat(classification.decidingCause()).containsSame(overloaded);
            assertThat(classification.isRetryable()).isTrue();
        }

        @Test
        void namesAnUntypedFailureByItself() {
            IllegalStateException odd = new IllegalStateException("odd");

            Classification classification = Classification.of(odd);

            assertThat(classification.kind()).isEqualTo(Classification.Kind.UNTYPED);
            assertThat(classification.decidingCause()).containsSame(odd);
        }

        @Test
        void namesNothingForNull() {
            Classification classification = Classification.of(null);

            assertThat(classification.kind()).isEqualTo(Classification.Kind.UNTYPED);
            assertThat(classification.decidingCause()).isEmpty();
            assertThat(classification).hasToString("Classification[UNTYPED, permanent]");
        }

        @Test
        void readsTheRateLimitOfTheDecidingStatusRetryableOrNot() {
            assertThat(Classification.of(new HttpStatusException(400, "bad", null, Duration.ofSeconds(2)))
                .rateLimitedFor()).contains(Duration.ofSeconds(2));
            assertThat(Classification.of(new RuntimeException(new HttpStatusException(503, "busy", null,
                    Duration.ofSeconds(3)))).rateLimitedFor()).contains(Duration.ofSeconds(3));
            assertThat(Classification.of(new NetworkException("reset", null)).rateLimitedFor()).isEmpty();
        }

        @Test
        void keepsTheRetryAfterOfAPermanentStatusToItself() {
            HttpStatusException badRequest = new HttpStatusException(400, "bad", Duration.ofSeconds(3));

            assertThat(Classification.of(badRequest).retryAfter()).isEmpty();
        }
    }
}
