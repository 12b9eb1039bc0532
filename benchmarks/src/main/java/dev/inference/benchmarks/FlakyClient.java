package dev.inference.benchmarks;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.failure.NetworkException;

/**
 * A client whose every call fails a fixed number of times, then succeeds: calls cycle through
 * {@code failures} throws of one preallocated {@link NetworkException} and one preallocated
 * response.
 *
 * <p>The exception is made once, so that the cost of filling in a stack trace (microseconds, and the
 * same for every library) does not hide the cost of the retry itself. Not thread-safe: one instance
 * per benchmark thread.
 */
final class FlakyClient implements InvokeOnlyClient {

    private final int failures;

    private final NetworkException failure = new NetworkException("connection reset by the benchmark", null);

    private final InferenceResponse response;

    private int failed;

    /**
     * Creates a client that fails {@code failures} times before each success.
     *
     * @param failures how many attempts of each call fail, at least 0
     * @param response the response of the attempt that succeeds
     */
    FlakyClient(int failures, InferenceResponse response) {
        if (failures < 0) {
            throw new IllegalArgumentException("failures must not be negative, was " + failures);
        }
        this.failures = failures;
        this.response = response;
    }

    /**
     * Fails with the preallocated {@link NetworkException} until {@code failures} attempts in a row
     * have failed, then returns the response and starts over.
     *
     * @return the response, on every {@code failures + 1}-th call
     * @throws NetworkException on the other calls
     */
    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        if (this.failed < this.failures) {
            this.failed++;
            throw this.failure;
        }
        this.failed = 0;
        return this.response;
    }
}
