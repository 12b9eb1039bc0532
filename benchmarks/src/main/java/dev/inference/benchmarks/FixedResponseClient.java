package dev.inference.benchmarks;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;

/**
 * The trivial call every success-path benchmark wraps: returns one preallocated response, so that
 * whatever a benchmark allocates beyond it is the retry library's.
 */
final class FixedResponseClient implements InvokeOnlyClient {

    private final InferenceResponse response;

    /**
     * Creates a client that always answers with {@code response}.
     *
     * @param response the response returned by every call
     */
    FixedResponseClient(InferenceResponse response) {
        this.response = response;
    }

    /**
     * Returns the preallocated response.
     *
     * @return the response given at construction
     */
    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        return this.response;
    }
}
