package dev.inference.retry.springai.exchange;

import dev.inference.client.CallContext;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.Operation;
import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt of an HTTP client interceptor's exchange came to, for the interceptors that retry
 * each exchange of a blocking client (a {@code RestClient}'s, an OkHttp client's): a response to return
 * (a success, or a permanent failure that the client turns into its exception), or a transport failure
 * to rethrow for the client to wrap. A failure to decide about is not an attempt's result: the attempt
 * throws it, its response already closed.
 *
 * @param <R> the client's response type
 * @param response the response to hand over, or {@code null} for a transport failure
 * @param transportFailure the transport's failure to rethrow, or {@code null}
 * @param failure the permanent failure that the handed-over result stands for, for the listeners, or
 *     {@code null} for a success
 */
public record InterceptedAttempt<R extends Closeable>(@Nullable R response, @Nullable IOException transportFailure,
        @Nullable RuntimeException failure) {

    /**
     * A successful response, handed over untouched.
     *
     * @param <R> the client's response type
     * @param response the response
     * @return the attempt
     */
    public static <R extends Closeable> InterceptedAttempt<R> success(R response) {
        return new InterceptedAttempt<>(response, null, null);
    }

    /**
     * A response with a permanent failure, handed over for the client to turn into its exception.
     *
     * @param <R> the client's response type
     * @param response the response
     * @param failure its typed failure
     * @return the attempt
     */
    public static <R extends Closeable> InterceptedAttempt<R> handOver(R response, RuntimeException failure) {
        return new InterceptedAttempt<>(response, null, failure);
    }

    /**
     * A transport failure not to retry (the calling thread was interrupted), rethrown for the client to
     * wrap.
     *
     * @param <R> the client's response type
     * @param transportFailure what the transport threw
     * @param failure its typed failure
     * @return the attempt
     */
    public static <R extends Closeable> InterceptedAttempt<R> handOver(IOException transportFailure,
            RuntimeException failure) {
        return new InterceptedAttempt<>(null, transportFailure, failure);
    }

    /**
     * Makes attempts on the calling thread, blocking during waits, until one gives something to hand
     * over or the retrier gives up, and hands it over.
     *
     * @param <R> the client's response type
     * @param blocking the retry
     * @param operation what the exchange is, for the listeners
     * @param attempt makes one attempt: returns what to hand over, or throws a failure to decide about
     * @return the response to hand over
     * @throws IOException the transport's failure to hand over
     * @throws RuntimeException what the retry throws when it gives up, such as an
     *     {@link dev.inference.retry.ExhaustedException}
     */
    public static <R extends Closeable> R call(BlockingRetry blocking, Operation operation,
            Supplier<InterceptedAttempt<R>> attempt) throws IOException {
        BlockingRetry.Attempts<InterceptedAttempt<R>, RuntimeException> attempts = new BlockingRetry.Attempts<>() {

            @Override
            public InterceptedAttempt<R> attempt(int number) {
                return attempt.get();
            }

            // A permanent failure: the client makes of it what it makes of it today.
            @Override
            public @Nullable RuntimeException handedBackFailureOf(InterceptedAttempt<R> result) {
                return result.failure();
            }

            // The caller never gets the response, so nobody else could close it.
            @Override
            public void release(InterceptedAttempt<R> result, Throwable thrown) {
                result.discard();
            }
        };
        return blocking.call(operation, FallbackMark.mark(CallContext.background()), attempts).handOver();
    }

    /** Returns the response, or throws the transport's failure. */
    private R handOver() throws IOException {
        if (this.transportFailure != null) {
            throw this.transportFailure;
        }
        return Objects.requireNonNull(this.response, "This attempt has nothing to hand over");
    }

    private void discard() {
        if (this.response != null) {
            try {
                this.response.close();
            }
            catch (IOException ex) {
                // Nothing was read from it that anyone needs: it is closed as far as it can be.
            }
        }
    }
}
