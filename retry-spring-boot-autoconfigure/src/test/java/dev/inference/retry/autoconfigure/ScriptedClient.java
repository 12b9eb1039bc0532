package dev.inference.retry.autoconfigure;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import java.util.NoSuchElementException;

/**
 * A fake {@link InferenceClient} that plays a {@link Script}: it fails as scripted, then succeeds,
 * and every attempt that reaches it is counted in the script.
 */
public class ScriptedClient implements InferenceClient {

    private final Script script;

    public ScriptedClient(Script script) {
        this.script = script;
    }

    @Override
    public InferenceResponse invoke(InferenceRequest request, CallContext context) {
        attempt();
        return InferenceResponse.of("ok");
    }

    @Override
    public StreamReader stream(InferenceRequest request, CallContext context) {
        attempt();
        return new EmptyStream();
    }

    private void attempt() {
        this.script.attempt();
    }

    /** A stream that has already ended normally. */
    private static final class EmptyStream implements StreamReader {

        @Override
        public boolean hasNext() {
            return false;
        }

        @Override
        public StreamEvent next() {
            throw new NoSuchElementException("The stream has ended");
        }

        @Override
        public StreamResult result() {
            return StreamResult.completed();
        }

        @Override
        public void close() {
        }
    }
}
