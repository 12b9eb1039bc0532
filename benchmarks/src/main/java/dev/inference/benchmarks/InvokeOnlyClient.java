package dev.inference.benchmarks;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.StreamReader;

/**
 * A client of the benchmarks and harnesses, which measure unary calls only: it refuses to stream.
 */
interface InvokeOnlyClient extends InferenceClient {

    /**
     * Not measured.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    default StreamReader stream(InferenceRequest request, CallContext context) {
        throw new UnsupportedOperationException("The benchmarks measure invoke only");
    }
}
