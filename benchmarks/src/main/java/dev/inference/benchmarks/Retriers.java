package dev.inference.benchmarks;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.function.CheckedPredicate;
import dev.inference.client.InferenceResponse;
import dev.inference.retry.Classification;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import dev.inference.retry.time.Sleeper;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * Every retry library under test, configured alike: {@code maxAttempts} attempts in all, retrying
 * exactly what {@link Classification#isRetryable(Throwable)} retries, with the smallest wait the
 * library allows.
 *
 * <p>Each retrier is built once and reused by every call, as each library intends (all of them are
 * immutable and thread-safe once built).
 */
final class Retriers {

    /** The sleeper that does not wait, so that a retry's cost is measured apart from its wait. */
    static final Sleeper NO_WAIT = (delay, context) -> {
    };

    private Retriers() {
    }

    /**
     * Returns the smallest policy with {@code maxAttempts}: every wait is one nanosecond before
     * jitter, which rounds down to zero.
     *
     * @param maxAttempts the attempts allowed in all
     * @return the policy
     */
    static Policy minimalPolicy(int maxAttempts) {
        return new Policy(0, Duration.ofNanos(1), maxAttempts, Duration.ofNanos(1));
    }

    /**
     * Starts the retrier of a {@link RetryClient} named {@code "bench"} with the
     * {@linkplain #minimalPolicy minimal policy} that never waits.
     *
     * @param maxAttempts the attempts allowed in all
     * @return the builder, to which a benchmark may add a listener or a budget
     */
    static Retrier.Builder retrier(int maxAttempts) {
        return Retrier.builder(minimalPolicy(maxAttempts)).name("bench").sleeper(NO_WAIT);
    }

    /**
     * Returns a Resilience4j retry with a zero wait (it then calls {@code Thread.sleep(0)} between
     * attempts; Resilience4j has no per-instance way to skip that).
     *
     * @param maxAttempts the attempts allowed in all
     * @return the retry
     */
    static Retry resilience4j(int maxAttempts) {
        return Retry.of("bench", resilience4jConfig(maxAttempts));
    }

    /**
     * Returns the configuration of {@link #resilience4j(int)}, for a retry made by a
     * {@code RetryRegistry}.
     *
     * @param maxAttempts the attempts allowed in all
     * @return the configuration
     */
    static RetryConfig resilience4jConfig(int maxAttempts) {
        return RetryConfig.custom()
                .maxAttempts(maxAttempts)
                .waitDuration(Duration.ZERO)
                .retryOnException(Classification::isRetryable)
                .build();
    }

    /**
     * Returns a Spring Framework 7 retry template with a zero delay (it then calls
     * {@code Thread.sleep(0)} between attempts).
     *
     * @param maxAttempts the attempts allowed in all
     * @return the template
     */
    static RetryTemplate springFramework(int maxAttempts) {
        return new RetryTemplate(RetryPolicy.builder()
                .maxRetries(maxAttempts - 1)
                .delay(Duration.ZERO)
                .predicate(Classification::isRetryable)
                .build());
    }

    /**
     * Returns a Failsafe executor for a retry policy with Failsafe's default delay, zero (it then
     * calls {@code Thread.sleep(0)} between attempts; {@code withDelay} refuses zero).
     *
     * @param maxAttempts the attempts allowed in all
     * @return the executor
     */
    static FailsafeExecutor<InferenceResponse> failsafe(int maxAttempts) {
        CheckedPredicate<Throwable> retryable = Classification::isRetryable;
        return Failsafe.with(dev.failsafe.RetryPolicy.<InferenceResponse>builder()
                .handleIf(retryable)
                .withMaxRetries(maxAttempts - 1)
                .build());
    }

    /**
     * Returns a Spring Retry template without back-off (it then does not sleep at all).
     *
     * @param maxAttempts the attempts allowed in all
     * @return the template
     */
    static org.springframework.retry.support.RetryTemplate springRetry(int maxAttempts) {
        return org.springframework.retry.support.RetryTemplate.builder()
                .maxAttempts(maxAttempts)
                .noBackoff()
                .retryOn(Classification::isRetryable)
                .build();
    }
}
