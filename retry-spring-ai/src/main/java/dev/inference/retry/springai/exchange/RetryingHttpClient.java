package dev.inference.retry.springai.exchange;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.internal.ForwardingProxy;
import dev.inference.retry.time.WaitScheduler;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The one decorator of a Stainless SDK's HTTP client (the OpenAI and Anthropic Java SDKs), with each
 * exchange retried by {@link RetryingExchanges}: the client the SDK is given in place of its transport,
 * beneath its own retries (which must be off), its logging and its error handling.
 *
 * <p>The client is a {@link ForwardingProxy} of the SDK's HTTP client interface: its two exchange
 * methods, {@code execute(request, options)} and {@code executeAsync(request, options)}, go to the
 * retried exchanges, each attempt to the transport with the same request options; every other method
 * (the overloads without options, which call those; {@code close()}; any the SDK adds later) goes to the
 * transport. As the SDK's layers above pass an exception from the HTTP client through unchanged, a
 * blocking call throws an {@link dev.inference.retry.ExhaustedException} itself, and a stream signals it
 * in its future. A blocking exchange whose attempts have a timeout stays on its caller's thread when the
 * transport carries {@link AbandonableCalls}, which cancels the attempt's OkHttp call from the timer;
 * on any other transport it sends each attempt with {@code executeAsync}, whose cancellation the SDK's
 * OkHttp transport turns into {@code Call.cancel()}, and which queues on OkHttp's dispatcher.
 */
public final class RetryingHttpClient {

    private RetryingHttpClient() {
    }

    /**
     * Makes the client.
     *
     * @param <C> the SDK's HTTP client interface
     * @param <R> the SDK's HTTP response interface
     * @param sdk the SDK's HTTP layer and failures, whose {@linkplain SdkHttp#clientType() client type} is
     *     {@code C}
     * @param transport the client the SDK would use, making one request per call
     * @param retrier the decisions
     * @param waits the timer of the waits of {@code executeAsync}
     * @param bodyReader where {@code executeAsync} reads what of a successful body belongs to the attempt,
     *     which blocks until it has arrived: the SDK's stream handler executor, which the SDK's client is
     *     then given as {@link StreamHandOff#streamHandlerExecutor}, so that the rest of a stream is read
     *     on the same thread
     * @param streamCalls the contexts of stream calls that a client wrapper cancels
     * @param abandonable whether the transport's OkHttp client carries {@link AbandonableCalls}, so that
     *     a blocking attempt is abandoned on its caller's thread
     * @return the retrying client; closing it closes the transport
     * @throws IllegalArgumentException if {@code transport} is not of the SDK's client type
     */
    public static <C, R> C of(SdkHttp<R> sdk, C transport, Retrier retrier, WaitScheduler waits, Executor bodyReader,
            StreamCalls streamCalls, boolean abandonable) {
        @SuppressWarnings("unchecked")
        Class<C> clientType = (Class<C>) sdk.clientType();
        if (!clientType.isInstance(transport)) {
            throw new IllegalArgumentException(transport + " is not a " + clientType.getName());
        }
        RetryingExchanges<R> exchanges = new RetryingExchanges<>(sdk, retrier, waits, bodyReader, streamCalls,
                abandonable);
        return ForwardingProxy.of(clientType, transport, "RetryingHttpClient[" + retrier + "]",
                (method, args) -> exchange(transport, exchanges, method, args));
    }

    @SuppressWarnings("unchecked")
    private static <R> Optional<Object> exchange(Object transport, RetryingExchanges<R> exchanges, Method method,
            @Nullable Object[] args) {
        if (method.isDefault() || method.getParameterCount() != 2) {
            return Optional.empty();
        }
        Object request = Objects.requireNonNull(args[0], "The SDK sent no request");
        Object options = args[1];
        return switch (method.getName()) {
            case "execute" -> Optional.of(exchanges.execute(request,
                    (attempt) -> (R) ForwardingProxy.invoke(transport, method, new Object[] { attempt, options }),
                    (attempt) -> (CompletableFuture<R>) ForwardingProxy.invoke(transport,
                            asyncTwin(method), new Object[] { attempt, options })));
            case "executeAsync" -> Optional.of(exchanges.executeAsync(request,
                    (attempt) -> (CompletableFuture<R>) ForwardingProxy.invoke(transport, method,
                            new Object[] { attempt, options })));
            default -> Optional.empty();
        };
    }

    /** The {@code executeAsync} of the same client interface, taking what {@code execute} takes. */
    private static Method asyncTwin(Method execute) {
        try {
            return execute.getDeclaringClass().getMethod("executeAsync", execute.getParameterTypes());
        }
        catch (NoSuchMethodException ex) {
            throw new IllegalStateException(execute.getDeclaringClass().getName()
                    + " has no executeAsync to time an attempt with", ex);
        }
    }
}
