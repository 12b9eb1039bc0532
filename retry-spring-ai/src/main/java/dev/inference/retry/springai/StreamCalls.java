package dev.inference.retry.springai;

import com.openai.core.http.HttpRequest;
import dev.inference.client.CallContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries the cancellation of a stream call from the SDK client, where the caller closes the stream,
 * down to the HTTP exchange that is retrying it.
 *
 * <p>Needed because the OpenAI SDK does not: closing an {@code AsyncStreamResponse} waits for its
 * exchange's future to complete and then closes the response, but never cancels that future. The
 * client wrapper registers a cancellable {@link CallContext} here for each stream call and names it in
 * a request header; the retrying HTTP client removes the header before the request leaves the JVM and
 * takes the context, whose cancellation then ends a wait at once with no further request. Thread-safe.
 */
final class StreamCalls {

    /** The request header naming a call; never sent to the provider. */
    static final String HEADER = "X-Inference-Retry-Stream-Call";

    private final Map<String, CallContext> calls = new ConcurrentHashMap<>();

    /**
     * Registers a call.
     *
     * @param context the call's context, which the caller cancels when it closes the stream
     * @return the call's id, to send in {@link #HEADER}
     */
    String register(CallContext context) {
        String id = UUID.randomUUID().toString();
        this.calls.put(id, context);
        return id;
    }

    /**
     * Forgets a call once it has ended. Idempotent.
     *
     * @param id the call's id
     */
    void forget(String id) {
        this.calls.remove(id);
    }

    /**
     * Returns the id a request carries, if any.
     *
     * @param request the request
     * @return the id in {@link #HEADER}, or empty
     */
    static Optional<String> idOf(HttpRequest request) {
        List<String> values = request.headers().values(HEADER);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /**
     * Returns the context of a call.
     *
     * @param id the call's id
     * @return the context, or empty when the call has already ended (its stream was closed before its
     *     exchange began)
     */
    Optional<CallContext> contextOf(String id) {
        return Optional.ofNullable(this.calls.get(id));
    }

    /**
     * Returns how many calls are registered.
     *
     * @return the number of calls that have not ended
     */
    int size() {
        return this.calls.size();
    }
}
