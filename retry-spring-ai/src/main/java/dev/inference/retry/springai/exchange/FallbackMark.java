package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import java.util.Objects;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.util.context.ContextView;

/**
 * Carries a fallback chain's word "this member's call has another model to ask" down to the retry loops
 * beneath a Spring AI model, which get no {@link CallContext} from their caller: every loop of this
 * module starts its call's context through {@link #mark(CallContext)}, or on Reactor
 * {@link #mark(CallContext, ContextView)}, and a marked context gives up with a
 * {@link dev.inference.retry.CoolingDownException} rather than wait for a {@code Retry-After} or a
 * cool-down ({@link CallContext#withFallback()}).
 *
 * <p>The word travels two ways at once, as a model's exchanges start in one place or the other: on the
 * thread that calls the model or subscribes to its stream, for the exchanges a client starts there (the
 * OpenAI and Anthropic SDKs, Spring's {@code RestClient}, Google's client); and in the Reactor context of
 * the stream's subscription ({@link #stream}), for the exchanges that run on Reactor, on whatever thread
 * they run ({@code WebClient}'s, as Ollama's streams, and the proxy's streams).
 *
 * <p>Trap: on the thread, the word is heard only while the call or the subscription runs there; an
 * exchange that a library starts later on a thread of its own, outside Reactor, waits as it would alone.
 */
public final class FallbackMark {

    private static final ThreadLocal<Boolean> ON_THREAD = new ThreadLocal<>();

    /** The key of the word in the Reactor context of a stream's subscription. */
    private static final String KEY = FallbackMark.class.getName();

    private FallbackMark() {
    }

    /**
     * Makes a call with the word that it has a fallback, on this thread.
     *
     * @param <T> what the call returns
     * @param call the call, such as a member model's {@code call}
     * @return what it returned
     * @throws NullPointerException if {@code call} is {@code null}
     */
    public static <T> T call(Supplier<T> call) {
        Objects.requireNonNull(call, "call must not be null");
        Boolean outer = ON_THREAD.get();
        ON_THREAD.set(Boolean.TRUE);
        try {
            return call.get();
        }
        finally {
            if (outer == null) {
                ON_THREAD.remove();
            }
        }
    }

    /**
     * Returns a stream whose every subscription carries the word that it has a fallback, both in its
     * Reactor context and on the thread while it subscribes to the stream {@code stream} makes.
     *
     * @param <T> the type of the elements
     * @param stream makes the stream, such as a member model's {@code stream}; called at each subscription
     * @return the stream
     * @throws NullPointerException if {@code stream} is {@code null}
     */
    public static <T> Flux<T> stream(Supplier<Flux<T>> stream) {
        Objects.requireNonNull(stream, "stream must not be null");
        // A model's exchange may start when its stream is made or when it is subscribed to: both within the word.
        Flux<T> marked = Flux.from((subscriber) -> call(() -> {
            stream.get().subscribe(subscriber);
            return null;
        }));
        return marked.contextWrite((context) -> context.put(KEY, Boolean.TRUE));
    }

    /**
     * Returns the context a retry loop started on this thread uses: {@code context} with a fallback when
     * the thread carries the word.
     *
     * @param context the loop's own context
     * @return {@code context}, or its {@linkplain CallContext#withFallback() view with a fallback}
     */
    public static CallContext mark(CallContext context) {
        return (ON_THREAD.get() != null) ? context.withFallback() : context;
    }

    /**
     * Returns the context a retry loop on Reactor uses: {@code context} with a fallback when the
     * subscription's Reactor context or this thread carries the word.
     *
     * @param context the loop's own context
     * @param view the Reactor context of the subscription
     * @return {@code context}, or its {@linkplain CallContext#withFallback() view with a fallback}
     */
    public static CallContext mark(CallContext context, ContextView view) {
        return view.hasKey(KEY) ? context.withFallback() : mark(context);
    }
}
