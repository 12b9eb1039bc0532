package dev.inference.sample.openai;

import dev.inference.client.CallContext;
import dev.inference.failure.DeadlineExceededException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Binds one attempt's exchange to its call's context: the moment the context is cancelled or its
 * deadline passes, the guard runs the attempt's abort actions (cancel the request, close the body)
 * and remembers which of the two ended it, so that the failure the blocked thread then sees can be
 * reported as what it really is.
 *
 * <p>The deadline is timed from the context's {@linkplain CallContext#timeRemaining() remaining
 * time} when the attempt starts, so a context on a test clock still gets a real timer.
 */
final class AttemptGuard implements AutoCloseable {

    /** Around 292 years: the longest delay {@link TimeUnit#NANOSECONDS} can express. */
    private static final Duration LONGEST_TIMER = Duration.ofNanos(Long.MAX_VALUE);

    private enum End {
        /** The attempt finished and the guard was closed. */
        CLOSED,
        /** The context was cancelled. */
        CANCELLED,
        /** The context's deadline passed. */
        DEADLINE
    }

    private final CompletableFuture<End> end = new CompletableFuture<>();

    private final List<Runnable> aborts = new CopyOnWriteArrayList<>();

    private CallContext.Registration cancellation = () -> {
    };

    private AttemptGuard() {
    }

    /**
     * Starts guarding an attempt.
     *
     * @param context the call's context
     * @return the guard, to be closed when the attempt's exchange is over
     * @throws RuntimeException the context's {@linkplain CallContext#failure() failure} if it is
     *     already done, so that no request is sent
     */
    // The thenAccept callback is registered for its effect: the future it returns is not needed.
    @SuppressWarnings("FutureReturnValueIgnored")
    static AttemptGuard start(CallContext context) {
        Optional<RuntimeException> done = context.failure();
        if (done.isPresent()) {
            throw done.get();
        }
        AttemptGuard guard = new AttemptGuard();
        context.timeRemaining().ifPresent((left) -> guard.end.completeOnTimeout(End.DEADLINE,
                (left.compareTo(LONGEST_TIMER) < 0) ? left.toNanos() : Long.MAX_VALUE, TimeUnit.NANOSECONDS));
        guard.end.thenAccept((end) -> {
            if (end != End.CLOSED) {
                guard.aborts.forEach(Runnable::run);
            }
        });
        guard.cancellation = context.onCancel(() -> guard.end.complete(End.CANCELLED));
        return guard;
    }

    /**
     * Registers an action that aborts the exchange; it runs at once if the attempt is already
     * aborted. Actions must be idempotent: one may run twice when it races with the abort.
     *
     * @param abort the action, such as cancelling the request or closing the body
     */
    void onAbort(Runnable abort) {
        this.aborts.add(abort);
        if (aborted()) {
            abort.run();
        }
    }

    /**
     * Returns the failure that ended the attempt from the caller's side, if any, with the
     * transport's own failure (what the blocked thread saw when the exchange was aborted) as its
     * cause.
     *
     * @param transportFailure what the transport threw, or {@code null}
     * @return a {@link CancellationException} or a {@link DeadlineExceededException}, or empty
     *     when the context neither was cancelled nor ran out of time during the attempt
     */
    Optional<RuntimeException> abortFailure(@Nullable Throwable transportFailure) {
        End end = this.end.getNow(End.CLOSED);
        @Nullable RuntimeException failure = switch (end) {
            case CANCELLED -> new CancellationException("The call was cancelled while waiting for the provider");
            case DEADLINE -> new DeadlineExceededException("The call's deadline passed while waiting for the provider");
            case CLOSED -> null;
        };
        if (failure != null && transportFailure != null) {
            failure.initCause(transportFailure);
        }
        return Optional.ofNullable(failure);
    }

    /**
     * Returns the caller's cancellation if the calling thread is interrupted: a read that the
     * interrupt cut short failed by the caller's doing, not the provider's. The interrupt status
     * stays set, for the caller to see.
     *
     * @param transportFailure what the read threw
     * @param message the cancellation's message, saying what was being read
     * @return a {@link CancellationException} caused by {@code transportFailure}, or empty when the
     *     thread is not interrupted
     */
    static Optional<RuntimeException> interruption(Throwable transportFailure, String message) {
        if (!Thread.currentThread().isInterrupted()) {
            return Optional.empty();
        }
        CancellationException cancelled = new CancellationException(message);
        cancelled.initCause(transportFailure);
        return Optional.of(cancelled);
    }

    private boolean aborted() {
        return this.end.getNow(End.CLOSED) != End.CLOSED;
    }

    /**
     * Ends the guard: cancels its deadline timer and withdraws it from the context, so later
     * cancellations abort nothing and a long-lived context does not keep the guard.
     */
    @Override
    public void close() {
        this.end.complete(End.CLOSED);
        this.cancellation.close();
    }
}
