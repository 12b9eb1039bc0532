package dev.inference.retry.springai;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Makes a provider SDK's HTTP client whose exchanges {@link RetryingExchanges} retries: the client the
 * SDK is given in place of its transport, beneath its own retries, logging and error handling.
 *
 * <p>The OpenAI and Anthropic SDKs declare the same HTTP client interface, each in its own package:
 * {@code execute(HttpRequest, RequestOptions)}, {@code executeAsync(HttpRequest, RequestOptions)},
 * overloads without options that call those, and {@code close()}. The client is a
 * {@link ForwardingProxy} of that interface: its two exchange methods go to the retried exchanges, each
 * attempt to the transport with the same request options, and every other method (closing, and any the
 * SDK adds later) to the transport.
 */
final class RetryingHttpClient {

    private RetryingHttpClient() {
    }

    /**
     * Makes the client.
     *
     * @param <C> the SDK's HTTP client interface
     * @param <Q> the SDK's HTTP request type
     * @param <R> the SDK's HTTP response interface
     * @param clientType the SDK's HTTP client interface
     * @param transport the client the SDK would use, making one request per call
     * @param exchanges the retried exchanges of the SDK's types
     * @return the retrying client; {@code execute} throws what {@link RetryingExchanges#execute} throws,
     *     {@code executeAsync} returns what {@link RetryingExchanges#executeAsync} returns, and
     *     {@code close} closes the transport
     */
    static <C, Q, R> C of(Class<C> clientType, C transport, RetryingExchanges<Q, R> exchanges) {
        return ForwardingProxy.of(clientType, transport, "RetryingHttpClient[" + exchanges.retrier() + "]",
                (method, args) -> exchange(transport, exchanges, method, args));
    }

    @SuppressWarnings("unchecked")
    private static <Q, R> Optional<Object> exchange(Object transport, RetryingExchanges<Q, R> exchanges, Method method,
            @Nullable Object[] args) {
        if (method.isDefault() || method.getParameterCount() != 2) {
            return Optional.empty();
        }
        Q request = (Q) Objects.requireNonNull(args[0], "The SDK sent no request");
        Object options = args[1];
        return switch (method.getName()) {
            case "execute" -> Optional.of(exchanges.execute(request,
                    (attempt) -> (R) ForwardingProxy.invoke(transport, method, new Object[] { attempt, options })));
            case "executeAsync" -> Optional.of(exchanges.executeAsync(request,
                    (attempt) -> (CompletableFuture<R>) ForwardingProxy.invoke(transport, method,
                            new Object[] { attempt, options })));
            default -> Optional.empty();
        };
    }
}
