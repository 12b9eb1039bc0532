package dev.inference.sample.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tests for {@link InterruptibleBody}, fed by hand as the HTTP client feeds it.
 */
// A guard against a hang, not a timing assertion.
@Timeout(30)
class InterruptibleBodyTests {

    private final InterruptibleBody body = new InterruptibleBody();

    private final RecordingSubscription subscription = new RecordingSubscription();

    private static List<ByteBuffer> buffers(String... parts) {
        return Arrays.stream(parts)
            .map((part) -> ByteBuffer.wrap(part.getBytes(StandardCharsets.UTF_8)))
            .toList();
    }

    @Test
    void isItsOwnBodyAtOnce() {
        assertThat(this.body.getBody().toCompletableFuture().getNow(null)).isSameAs(this.body);
    }

    @Test
    void readsWhatIsDeliveredAcrossBuffersThenEnds() throws IOException {
        this.body.onSubscribe(this.subscription);
        this.body.onNext(buffers("Hel", "lo"));
        this.body.onNext(buffers(", ", "world"));
        this.body.onComplete();

        assertThat(new String(this.body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("Hello, world");
        assertThat(this.body.read()).isEqualTo(-1);
    }

    @Test
    void asksForOneListOfBuffersAtATime() throws IOException {
        this.body.onSubscribe(this.subscription);
        assertThat(this.subscription.requested).hasValue(1);
        this.body.onNext(buffers("ab"));

        assertThat(this.body.read()).isEqualTo('a');

        assertThat(this.subscription.requested).hasValue(2);
    }

    @Test
    void failsAReadWithTheFailureDelivered() {
        this.body.onSubscribe(this.subscription);
        EOFException cut = new EOFException("cut");
        this.body.onError(cut);

        assertThatExceptionOfType(IOException.class).isThrownBy(this.body::read).isSameAs(cut);
    }

    @Test
    void wrapsAFailureThatIsNotAnIOException() {
        this.body.onSubscribe(this.subscription);
        IllegalStateException broken = new IllegalStateException("broken");
        this.body.onError(broken);

        assertThatExceptionOfType(IOException.class).isThrownBy(this.body::read).withCause(broken);
    }

    @Test
    void endsAReadBlockedInAnotherThreadWhenClosed() throws Exception {
        this.body.onSubscribe(this.subscription);
        CompletableFuture<Throwable> read = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                this.body.read();
                read.complete(null);
            }
            catch (IOException ex) {
                read.complete(ex);
            }
        }, "blocked-reader");
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reader.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(reader.getState()).as("the reader blocked").isEqualTo(Thread.State.WAITING);

        this.body.close();

        assertThat(read.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class)
            .hasMessage("The response body is closed");
        assertThat(this.subscription.cancelled).isTrue();
    }

    @Test
    void endsAnInterruptedReadClosedWithTheInterruptKept() {
        this.body.onSubscribe(this.subscription);
        Thread.currentThread().interrupt();
        try {
            assertThatExceptionOfType(InterruptedIOException.class).isThrownBy(this.body::read)
                .withMessage("Interrupted while reading the response body")
                .withCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(this.subscription.cancelled).isTrue();
        }
        finally {
            Thread.interrupted();
        }
    }

    @Test
    void cancelsASubscriptionThatComesAfterTheClose() {
        this.body.close();

        this.body.onSubscribe(this.subscription);

        assertThat(this.subscription.cancelled).isTrue();
        assertThat(this.subscription.requested).hasValue(0);
    }

    @Test
    void readsNothingIntoAnEmptyRange() throws IOException {
        assertThat(this.body.read(new byte[4], 2, 0)).isZero();
    }

    /** Records what the body asks of its subscription. */
    private static final class RecordingSubscription implements Flow.Subscription {

        final AtomicLong requested = new AtomicLong();

        final AtomicBoolean cancelled = new AtomicBoolean();

        @Override
        public void request(long n) {
            this.requested.addAndGet(n);
        }

        @Override
        public void cancel() {
            this.cancelled.set(true);
        }
    }
}
