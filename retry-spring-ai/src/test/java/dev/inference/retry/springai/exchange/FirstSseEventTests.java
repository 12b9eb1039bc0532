package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FirstSseEventTests {

    @Nested
    class Recognition {

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                one data line                  | "data: a\\n\\n"                              | a
                carriage returns               | "data: a\\r\\n\\r\\n"                        | a
                bare carriage returns          | "data: a\\r\\r"                            | a
                line endings mixed             | "event: x\\rdata: a\\r\\ndata: b\\n\\r"      | "a\\nb"
                no space after the colon       | "data:a\\n\\n"                               | a
                only the first space dropped   | "data:  a\\n\\n"                             | " a"
                a comment first                | ": keep-alive\\n\\ndata: a\\n\\n"            | a
                metadata without data first    | "id: 1\\nretry: 5\\n\\ndata: a\\n\\n"        | a
                named event                    | "event: x\\ndata: a\\n\\n"                   | a
                several data lines             | "data: a\\ndata: b\\n\\n"                    | "a\\nb"
                a data field without a value   | "data\\n\\n"                                 | ""
                second event not reached       | "data: a\\n\\ndata: b\\n\\n"                 | a
                """)
        void findsTheFirstEventsData(String description, String stream, String data) throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream(unescape(stream)), 1024);

            assertThat(first.data()).isEqualTo(unescape(data));
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                nothing                        | ""
                an event never dispatched      | "data: a\\n"
                only comments                  | ": a\\n\\n: b\\n\\n"
                """)
        void findsNoEventInAStreamThatEndsBeforeOne(String description, String stream) throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream(unescape(stream)), 1024);

            assertThat(first.data()).isNull();
            assertThat(new String(first.bytesRead(), StandardCharsets.UTF_8)).isEqualTo(unescape(stream));
        }

        @Test
        void findsAnEventDeliveredOneByteAtATime() throws IOException {
            InputStream trickle = new ByteArrayInputStream("data: {\"a\":1}\r\n\r\n".getBytes(StandardCharsets.UTF_8)) {

                @Override
                public synchronized int read(byte[] buffer, int offset, int length) {
                    return super.read(buffer, offset, Math.min(length, 1));
                }
            };

            assertThat(FirstSseEvent.read(trickle, 1024).data()).isEqualTo("{\"a\":1}");
        }

        @Test
        void keepsMultiByteCharactersSplitAcrossReads() throws IOException {
            InputStream trickle = new ByteArrayInputStream("data: é€\n\n".getBytes(StandardCharsets.UTF_8)) {

                @Override
                public synchronized int read(byte[] buffer, int offset, int length) {
                    return super.read(buffer, offset, Math.min(length, 1));
                }
            };

            assertThat(FirstSseEvent.read(trickle, 1024).data()).isEqualTo("é€");
        }
    }

    @Nested
    class Names {

        @Test
        void giveTheEventsNameWithItsData() throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream("event: error\ndata: {}\n\n"), 1024);

            assertThat(first.event()).isEqualTo(new FirstSseEvent.Event("error", "{}"));
        }

        @Test
        void areAbsentFromAnEventWithoutOne() throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream("data: {}\n\n"), 1024);

            assertThat(first.event()).isEqualTo(new FirstSseEvent.Event(null, "{}"));
        }

        @Test
        void doNotCarryOverToTheNextEvent() throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream("event: ping\n\ndata: a\n\n"), 1024);

            assertThat(first.event()).isEqualTo(new FirstSseEvent.Event(null, "a"));
        }
    }

    @Nested
    class Preamble {

        @Test
        void isReadPastToTheFirstOtherEvent() throws IOException {
            String stream = "event: message_start\ndata: s\n\nevent: ping\ndata: p\n\nevent: error\ndata: e\n\n";

            FirstSseEvent first = FirstSseEvent.read(stream(stream), 1024, (event) -> !"error".equals(event.name()));

            assertThat(first.event()).isEqualTo(new FirstSseEvent.Event("error", "e"));
            assertThat(new String(first.bytesRead(), StandardCharsets.UTF_8)).isEqualTo(stream);
        }

        @Test
        void endsWhereTheBlankLineThatDispatchedTheFirstOtherEventEnds() throws IOException {
            String events = "event: ping\ndata: p\n\ndata: a\n\n";

            FirstSseEvent first = FirstSseEvent.read(stream(events + "data: b"), 1024,
                    (event) -> "ping".equals(event.name()));

            assertThat(first.eventEnd()).isEqualTo(events.length());
        }

        @Test
        void endNowhereWhenNoEventWasComplete() throws IOException {
            assertThat(FirstSseEvent.read(stream("event: ping\ndata: p\n\ndata: a\n"), 1024,
                    (event) -> "ping".equals(event.name())).eventEnd()).isZero();
        }

        @Test
        void countsTowardsTheLimit() throws IOException {
            String stream = "event: ping\ndata: p\n\n".repeat(10) + "data: a\n\n";

            FirstSseEvent first = FirstSseEvent.read(stream(stream), 64, (event) -> "ping".equals(event.name()));

            assertThat(first.event()).isNull();
            assertThat(first.bytesRead()).hasSize(64);
        }

        @Test
        void leavesNoEventWhenTheStreamEndsAfterIt() throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream("event: ping\ndata: p\n\n"), 1024,
                    (event) -> "ping".equals(event.name()));

            assertThat(first.event()).isNull();
        }
    }

    @Nested
    class Reading {

        @Test
        void stopsReadingOnceTheFirstEventIsComplete() throws IOException {
            InputStream rest = new InputStream() {

                @Override
                public int read() {
                    throw new AssertionError("read past the first event");
                }
            };
            byte[] event = "data: a\n\n".getBytes(StandardCharsets.UTF_8);

            FirstSseEvent first = FirstSseEvent.read(new SequenceInputStream(new ByteArrayInputStream(event), rest), 1024);

            assertThat(first.bytesRead()).isEqualTo(event);
        }

        @Test
        void keepsEveryByteItReadBeyondTheFirstEvent() throws IOException {
            String stream = "data: a\n\ndata: b\n\ndata: [DONE]\n\n";

            FirstSseEvent first = FirstSseEvent.read(stream(stream), 1024);

            assertThat(new String(first.bytesRead(), StandardCharsets.UTF_8)).isEqualTo(stream);
        }

        @Test
        void findsAFirstEventLongerThanItsFirstRead() throws IOException {
            String data = "x".repeat(10_000);
            String stream = "data: " + data + "\n\ndata: b\n\n";

            FirstSseEvent first = FirstSseEvent.read(stream(stream), 64 * 1024);

            assertThat(first.data()).isEqualTo(data);
            assertThat(new String(first.bytesRead(), StandardCharsets.UTF_8)).isEqualTo(stream);
        }

        @Test
        void givesUpAtTheLimitWithoutAnEvent() throws IOException {
            FirstSseEvent first = FirstSseEvent.read(stream("data: " + "x".repeat(100) + "\n\n"), 16);

            assertThat(first.data()).isNull();
            assertThat(first.bytesRead()).hasSize(16);
        }

        @Test
        void passesOnWhatReadingThrows() {
            InputStream failing = new InputStream() {

                @Override
                public int read() throws IOException {
                    throw new IOException("reset");
                }
            };

            assertThatThrownBy(() -> FirstSseEvent.read(failing, 1024)).isInstanceOf(IOException.class).hasMessage("reset");
        }
    }

    private static InputStream stream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String unescape(String text) {
        return text.replace("\\r", "\r").replace("\\n", "\n");
    }
}
