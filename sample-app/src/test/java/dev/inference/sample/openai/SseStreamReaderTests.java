package dev.inference.sample.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.client.CallContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tests for {@link SseStreamReader} on its own, over bodies whose every read the test controls.
 */
// A guard against a hang, not a timing assertion.
@Timeout(60)
class SseStreamReaderTests {

    private final ExecutorService readers = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopReaders() throws InterruptedException {
        this.readers.shutdownNow();
        assertThat(this.readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Nested
    class ReleasedWhileAnotherThreadReads {

        /**
         * Enough runs that a race which a run meets a few times in ten thousand, on a busy
         * two-core machine, is all but certain to be met.
         */
        private static final int RUNS = 10_000;

        /**
         * The longest pause of the reading thread between being let fail and failing: about as
         * long as {@code close()} takes at {@link #STACK_DEPTH}, so that the runs spread the
         * failure over the whole of it.
         */
        private static final long MAX_PAUSE_NANOS = 60_000;

        /** Deep enough that the exception {@code close()} makes takes a while to fill in its trace. */
        private static final int STACK_DEPTH = 2000;

        @Test
        void endsWithTheCancellationEveryTimeAndNeverANullPointerException() throws Exception {
            List<String> wrong = new ArrayList<>();
            SplittableRandom pauses = new SplittableRandom(20261201);
            for (int run = 0; run < RUNS; run++) {
                CallContext context = CallContext.cancellable();
                BlockingBody body = new BlockingBody(pauses.nextLong(MAX_PAUSE_NANOS));
                SseStreamReader reader = new SseStreamReader(body, AttemptGuard.start(context), new ChatCompletions(), null);
                CompletableFuture<Throwable> read = CompletableFuture.supplyAsync(() -> {
                    try {
                        reader.hasNext();
                        return null;
                    }
                    catch (RuntimeException ex) {
                        return ex;
                    }
                }, readers);
                assertThat(body.reading.await(30, TimeUnit.SECONDS)).as("the reader is blocked reading").isTrue();

                // The order ChatController releases a stream in.
                context.cancel();
                body.failAfterPause();
                atDepth(STACK_DEPTH, reader::close);

                Throwable thrown = read.get(30, TimeUnit.SECONDS);
                Throwable reported = reader.result().failure().orElse(null);
                if (!(thrown instanceof CancellationException) || !(reported instanceof CancellationException)) {
                    wrong.add("run " + run + ": hasNext() threw " + thrown + ", result() reported " + reported);
                }
            }
            assertThat(wrong).as("%d of %d runs went wrong", wrong.size(), RUNS).isEmpty();
        }

        /**
         * Runs an action this many frames down the stack, as a release from a web container's
         * callbacks runs: every exception made on the way fills in a stack trace that long.
         */
        private static void atDepth(int frames, Runnable action) {
            if (frames == 0) {
                action.run();
                return;
            }
            atDepth(frames - 1, action);
        }
    }

    @Nested
    class ReadingFailsWithAnError {

        @Test
        void rethrowsTheErrorAndWithdrawsTheAttemptsHooksAtOnce() {
            CallContext context = CallContext.cancellable();
            ErrorBody body = new ErrorBody();
            SseStreamReader reader = new SseStreamReader(body, AttemptGuard.start(context), new ChatCompletions(), null);

            assertThatExceptionOfType(InjectedError.class).isThrownBy(reader::hasNext);

            assertThat(body.closes).as("the body closed at once").hasValue(1);
            context.cancel();
            assertThat(body.closes).as("no abort left registered with the context").hasValue(1);
        }

        @Test
        void endsTheStreamWithTheError() {
            SseStreamReader reader = new SseStreamReader(new ErrorBody(), AttemptGuard.start(CallContext.cancellable()),
                    new ChatCompletions(), null);

            assertThatExceptionOfType(InjectedError.class).isThrownBy(reader::hasNext);

            assertThat(reader.result().failure()).get().isInstanceOf(IllegalStateException.class)
                .extracting(Throwable::getCause).isInstanceOf(InjectedError.class);
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(reader::hasNext)
                .withMessage("Reading the stream failed with " + InjectedError.class.getName() + ": injected");
        }
    }

    /** An {@link Error}, such as a virtual machine error, thrown while a body is read. */
    static final class InjectedError extends Error {

        private static final long serialVersionUID = 1L;

        InjectedError() {
            super("injected");
        }
    }

    /** A body whose every read throws an {@link InjectedError}, and which counts its closes. */
    static final class ErrorBody extends InputStream {

        final AtomicInteger closes = new AtomicInteger();

        @Override
        public int read() {
            throw new InjectedError();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            throw new InjectedError();
        }

        @Override
        public void close() {
            this.closes.incrementAndGet();
        }
    }

    /**
     * A body like a socket's: a read blocks until the body is closed, and then fails. The failure
     * waits for {@link #failAfterPause()}, and then for a pause that moves it along the steps of
     * whatever the test does next.
     */
    static final class BlockingBody extends InputStream {

        final CountDownLatch reading = new CountDownLatch(1);

        private final CountDownLatch closed = new CountDownLatch(1);

        private final long pauseNanos;

        private volatile boolean fail;

        BlockingBody(long pauseNanos) {
            this.pauseNanos = pauseNanos;
        }

        @Override
        public int read() throws IOException {
            this.reading.countDown();
            try {
                this.closed.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while blocked", ex);
            }
            while (!this.fail) {
                Thread.onSpinWait();
            }
            spin(this.pauseNanos);
            throw new IOException("Socket closed");
        }

        /** Busy-waits: a pause far shorter than any sleep, to vary the interleaving, not to synchronise. */
        private static void spin(long nanos) {
            long start = System.nanoTime();
            while (System.nanoTime() - start < nanos) {
                Thread.onSpinWait();
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return (length == 0) ? 0 : read();
        }

        /** Lets a read woken by the close fail, after its pause. */
        void failAfterPause() {
            this.fail = true;
        }

        @Override
        public void close() {
            this.closed.countDown();
        }
    }
}
