package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Carries the cancellation of a stream call from the SDK client, where the caller closes the stream,
 * down to the HTTP exchange that is retrying it.
 *
 * <p>Needed because the provider SDKs do not: closing the OpenAI SDK's {@code AsyncStreamResponse}
 * waits for its exchange's future to complete and then closes the response, and cancelling the future
 * the Anthropic SDK returns for a stream does not reach its exchange either. The client wrapper
 * registers a cancellable {@link CallContext} here for each stream call and names it in a request
 * header; {@link RetryingExchanges} removes the header before the request leaves the JVM and takes the
 * context, whose cancellation then ends a wait at once with no further request. Thread-safe.
 */
public final class StreamCalls {

    /** The request header naming a call; never sent to the provider. */
    public static final String HEADER = "X-Inference-Retry-Stream-Call";

    private final Map<String, CallContext> calls = new ConcurrentHashMap<>();

    /** Numbers the calls: an id only has to be unique among this registry's calls, never sent on. */
    private final AtomicLong ids = new AtomicLong();

    /**
     * Registers a call.
     *
     * @param context the call's context, which the caller cancels when it closes the stream
     * @return the call's id, to send in {@link #HEADER}
     */
    public String register(CallContext context) {
        String id = Long.toString(this.ids.incrementAndGet());
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
     * Starts a stream call under a newly registered context, and forgets the call once it has ended.
     *
     * @param <T> what starting the call returns
     * @param start starts the call with the id to send in {@link #HEADER}
     * @param ended the stage that completes once the call's exchange is over (its stream ended, failed or
     *     was closed, or it never began)
     * @return what {@code start} returned, and the call's context, which the caller cancels to end it
     * @throws RuntimeException what {@code start} threw, the call forgotten
     */
    public <T> Started<T> start(Function<String, T> start, Function<T, CompletionStage<?>> ended) {
        // A fallback chain's member gives up rather than wait for a Retry-After (see FallbackMark).
        CallContext context = FallbackMark.mark(CallContext.cancellable());
        String id = register(context);
        T started;
        try {
            started = start.apply(id);
        }
        catch (RuntimeException | Error ex) {
            forget(id);
            throw ex;
        }
        ended.apply(started).whenComplete((unused, failure) -> forget(id));
        return new Started<>(started, context);
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
    public int size() {
        return this.calls.size();
    }

    /**
     * A stream call that {@link #start} started.
     *
     * @param <T> what starting it returned
     * @param call what starting it returned
     * @param context its context; cancelling it ends a wait of its exchange at once, with no further request
     */
    public record Started<T>(T call, CallContext context) {
    }
}
