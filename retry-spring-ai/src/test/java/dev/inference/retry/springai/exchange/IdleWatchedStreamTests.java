package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.failure.StreamStalledException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryListener;
import dev.inference.retry.StreamStalledEvent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The idle watch of an established stream, in virtual time: which bytes count as an event that ends a
 * silence, and what a stream that stalls does to its reader. Each stream is read in pieces of a chosen
 * size, so that lines and line ends fall across reads as they do on a socket.
 */
class IdleWatchedStreamTests {

    private static final Duration IDLE = Duration.ofSeconds(10);

    private final ManualTimer timer = new ManualTimer();

    private final List<StreamStalledEvent> stalls = new ArrayList<>();

    private final AtomicInteger closes = new AtomicInteger();

    private final Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
        .name("model")
        .timer(this.timer)
        .listener(new RetryListener() {
            @Override
            public void streamStalled(StreamStalledEvent event) {
                IdleWatchedStreamTests.this.stalls.add(event);
            }
        })
        .build();

    @Nested
    class Events {

        @Test
        void aDataEventEndsTheSilence() throws IOException {
            assertThat(stallsWithItsEventsReadLate(watch("data: {\"a\":1}\n\n"), timer, 3)).isFalse();
        }

        @Test
        void anEventWhoseLinesEndInCarriageReturnsOrBothEndsTheSilence() throws IOException {
            for (String event : List.of("data: x\r\r", "data: x\r\n\r\n", "event: delta\r\ndata: x\r\n\r\n")) {
                ManualTimer clock = new ManualTimer();
                IdleWatchedStream watched = IdleWatchedStream.watch(new byte[0], stream(event), IDLE, retrierOn(clock),
                        closes::incrementAndGet);

                assertThat(stallsWithItsEventsReadLate(watched, clock, 1)).as(event).isFalse();
            }
        }

        @Test
        void aDataLineLongerThanAnyReadEndsTheSilenceOnceItsEventEnds() throws IOException {
            assertThat(stallsWithItsEventsReadLate(watch("data: " + "x".repeat(20_000) + "\n\n"), timer, 4096))
                .isFalse();
        }

        @Test
        void anEventWhoseStartCameWithTheFirstEventEndsTheSilenceWhenItsEndComes() throws IOException {
            IdleWatchedStream watched = watchAfter("data: first\n\ndata: sec", "ond\n\n");

            assertThat(stallsWithItsEventsReadLate(watched, timer, 64)).isFalse();
        }

        @Test
        void anEventWhoseLinesCameWithTheFirstEventEndsTheSilenceWhenItsBlankLineComes() throws IOException {
            IdleWatchedStream watched = watchAfter("data: first\n\ndata: second\n", "\n");

            assertThat(stallsWithItsEventsReadLate(watched, timer, 64)).isFalse();
        }

        @Test
        void anEventBegunWithTheFirstEventEndsTheSilenceWhenTheWatchStartsWhereTheFirstEventEnded()
                throws IOException {
            // The \n after the blank line's \r is the rest of a \r\n: the watch starts on it.
            FirstSseEvent first = FirstSseEvent.read(stream("event: ping\ndata: p\r\r\ndata: first\r\r\ndata: sec"),
                    1024, (event) -> "ping".equals(event.name()));
            IdleWatchedStream watched = IdleWatchedStream.watch(first.bytesRead(), first.eventEnd(),
                    stream("ond\r\r"), IDLE, retrier, closes::incrementAndGet, null);

            assertThat(stallsWithItsEventsReadLate(watched, timer, 64)).isFalse();
        }

        @Test
        void anEventReadOneByteAtATimeEndsTheSilenceAndReachesTheReaderWhole() throws IOException {
            String event = "data: {\"a\":1}\n\n";
            IdleWatchedStream watched = watch(event);
            timer.advance(Duration.ofSeconds(9));

            StringBuilder read = new StringBuilder();
            // Not to the stream's end, which would end the watch too.
            for (int i = 0; i < event.length(); i++) {
                read.append((char) watched.read());
            }
            timer.advance(Duration.ofSeconds(1));

            assertThat(read).hasToString(event);
            assertThat(closes).hasValue(0);
        }

        @Test
        void anEventNamedLikePingButLongerIsAnEvent() throws IOException {
            assertThat(stallsWithItsEventsReadLate(watch("event: pingback\ndata: {}\n\n"), timer, 2)).isFalse();
        }

        @Test
        void aDataEventEndsTheSilenceWhereverItsLineEndsFallInTheRead() throws IOException {
            for (int length = 0; length < 24; length++) {
                ManualTimer clock = new ManualTimer();
                String event = "data: " + "x".repeat(length) + "\n\n";
                IdleWatchedStream watched = IdleWatchedStream.watch(new byte[0], stream(event), IDLE, retrierOn(clock),
                        closes::incrementAndGet);

                assertThat(stallsWithItsEventsReadLate(watched, clock, 64)).as(event).isFalse();
            }
        }
    }

    @Nested
    class LineEnds {

        @Test
        void areFoundWhereALookAtEachByteFindsThem() {
            byte[] choices = { '\n', '\r', 'a', '{', (byte) 0x8A, (byte) 0x8D, 0x0B, 0x0C, 0x00, (byte) 0xFF };
            Random random = new Random(42);
            for (int round = 0; round < 2_000; round++) {
                byte[] bytes = new byte[random.nextInt(40)];
                for (int i = 0; i < bytes.length; i++) {
                    // Mostly ordinary bytes, as in a line of JSON.
                    bytes[i] = (random.nextInt(8) == 0) ? choices[random.nextInt(choices.length)] : (byte) 'q';
                }
                int from = random.nextInt(bytes.length + 1);
                int end = from + random.nextInt(bytes.length - from + 1);

                assertThat(IdleWatchedStream.lineEnd(bytes, from, end)).as("%s from %d to %d", Arrays.toString(bytes),
                        from, end).isEqualTo(lineEndByteByByte(bytes, from, end));
            }
        }

        @Test
        void areNotBytesThatDifferFromOneInABitOrInTheHighBit() {
            byte[] bytes = { (byte) 0x8A, (byte) 0x8D, 0x0B, 0x0C, 0x0E, 0x1A, 0x2D, (byte) 0x8A, 0x09, 0x00,
                (byte) 0xFF };

            assertThat(IdleWatchedStream.lineEnd(bytes, 0, bytes.length)).isEqualTo(bytes.length);
        }

        private static int lineEndByteByByte(byte[] bytes, int from, int end) {
            int i = from;
            while (i < end && bytes[i] != '\n' && bytes[i] != '\r') {
                i++;
            }
            return i;
        }
    }

    @Nested
    class KeepAlives {

        @Test
        void aPingEventIsSilence() throws IOException {
            assertThat(stallsWithItsEventsReadLate(watch("event: ping\ndata: {\"type\": \"ping\"}\n\n"), timer, 5))
                .isTrue();
            assertThat(stalls).singleElement().satisfies((stall) -> assertThat(stall.idleTimeout()).isEqualTo(IDLE));
        }

        @Test
        void aPingAfterAFirstReadThatEndedWithWholeEventsIsSilence() throws IOException {
            IdleWatchedStream watched = watchAfter("data: first\n\nevent: delta\r\ndata: second\r\n\n",
                    "event: ping\ndata: {}\n\n");

            assertThat(stallsWithItsEventsReadLate(watched, timer, 64)).isTrue();
        }

        @Test
        void aCommentIsSilence() throws IOException {
            assertThat(stallsWithItsEventsReadLate(watch(": keep-alive\n\n"), timer, 7)).isTrue();
        }
    }

    @Nested
    class Stalls {

        @Test
        void closeTheResponseAndFailEveryLaterReadTyped() throws IOException {
            IdleWatchedStream watched = watch("data: x\n\n");

            timer.advance(IDLE);

            assertThat(closes).hasValue(1);
            assertThatExceptionOfType(StreamStalledException.class).isThrownBy(() -> watched.read(new byte[8], 0, 8))
                .withMessageContaining("stream-idle-timeout of PT10S");
        }

        @Test
        void neverComeOnceTheStreamIsClosed() throws IOException {
            IdleWatchedStream watched = watch("data: x\n\n");

            watched.close();
            timer.advance(IDLE.multipliedBy(2));

            assertThat(stalls).isEmpty();
            assertThat(timer.pending()).isZero();
        }

        @Test
        void neverComeOnceTheStreamHasEnded() throws IOException {
            IdleWatchedStream watched = watch("data: x\n\n");

            readEvents(watched, 64);
            watched.read(new byte[1], 0, 1);
            timer.advance(IDLE.multipliedBy(2));

            assertThat(stalls).isEmpty();
            assertThat(timer.pending()).isZero();
        }
    }

    /**
     * Reads every event of a watched stream 9 s into its watch, in pieces of at most {@code piece} bytes,
     * then lets the watch's first 10 s run out: tells whether the stream was ended as stalled, which it
     * is unless what was read ended the silence.
     */
    private boolean stallsWithItsEventsReadLate(IdleWatchedStream watched, ManualTimer clock, int piece)
            throws IOException {
        int before = this.closes.get();
        clock.advance(Duration.ofSeconds(9));
        readEvents(watched, piece);
        clock.advance(Duration.ofSeconds(1));
        return this.closes.get() > before;
    }

    private IdleWatchedStream watch(String events) {
        return watchAfter("", events);
    }

    /** Starts the watch on what the first read brought, the first event and what came with it, then the rest. */
    private IdleWatchedStream watchAfter(String firstRead, String rest) {
        return IdleWatchedStream.watch(firstRead.getBytes(StandardCharsets.UTF_8), stream(rest), IDLE, this.retrier,
                this.closes::incrementAndGet);
    }

    private Retrier retrierOn(ManualTimer clock) {
        return Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
            .name("model")
            .timer(clock)
            .build();
    }

    private static InputStream stream(String events) {
        return new ByteArrayInputStream(events.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads every byte of a stream in pieces of at most {@code piece} bytes, without reading its end,
     * which would end the watch: the stream stays open as a provider's does between events.
     */
    private static void readEvents(InputStream stream, int piece) throws IOException {
        byte[] buffer = new byte[piece];
        while (stream.available() > 0) {
            stream.read(buffer, 0, Math.min(piece, stream.available()));
        }
    }
}
