package dev.inference.retry;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Says "the caller has another model to ask" to retry loops that run beneath a library's API, which
 * carries no {@link dev.inference.client.CallContext} from the caller, such as the provider exchanges
 * of a Spring AI chat model: every {@link RetryExecution} started on this thread while
 * {@link #call} runs treats its context as {@linkplain dev.inference.client.CallContext#withFallback()
 * having a fallback}, and gives up with a {@link CoolingDownException} rather than wait for a
 * {@code Retry-After} or a cool-down.
 *
 * <p>Trap: only executions started on the calling thread hear it; a library that starts its exchange
 * on a thread of its own (a stream subscribed on another scheduler) waits as it would alone.
 */
public final class FallbackScope {

    private static final ThreadLocal<Boolean> ACTIVE = new ThreadLocal<>();

    private FallbackScope() {
    }

    /**
     * Runs a call with the word that its caller has a fallback.
     *
     * @param <T> what the call returns
     * @param call the call
     * @return what it returned
     * @throws NullPointerException if {@code call} is {@code null}
     */
    public static <T> T call(Supplier<T> call) {
        Objects.requireNonNull(call, "call must not be null");
        Boolean outer = ACTIVE.get();
        ACTIVE.set(Boolean.TRUE);
        try {
            return call.get();
        }
        finally {
            if (outer == null) {
                ACTIVE.remove();
            }
        }
    }

    /**
     * Tells whether a call on this thread runs within {@link #call}.
     *
     * @return {@code true} inside it
     */
    public static boolean isActive() {
        return ACTIVE.get() != null;
    }
}
