package example;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.HttpStatusException;
import java.util.concurrent.atomic.AtomicInteger;

/** An inference client whose provider is overloaded once (503), then answers. */
public class FlakyClient implements InferenceClient {

    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        if (this.calls.incrementAndGet() == 1) {
            throw new HttpStatusException(503, "overloaded", null);
        }
        return InferenceResponse.of("Hello from " + request.model());
    }

    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        throw new UnsupportedOperationException("the quick start only invokes");
    }
}
