package dev.inference.sample.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.failure.NetworkException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SseLinesTests {

    private static List<String> lines(InputStream body, int bound) throws IOException {
        SseLines lines = new SseLines(body, bound);
        List<String> read = new ArrayList<>();
        for (String line = lines.next(); line != null; line = lines.next()) {
            read.add(line);
        }
        return read;
    }

    private static InputStream body(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Hands out one byte per read, so that every line end is split across reads. */
    private static InputStream trickling(String text) {
        InputStream whole = body(text);
        return new InputStream() {

            @Override
            public int read() throws IOException {
                return whole.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                return whole.read(buffer, offset, Math.min(1, length));
            }
        };
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void endsLinesAtLfCrAndCrLf(boolean trickle) throws IOException {
        String text = "a\nb\rc\r\nd\r\n\r\ne";
        assertThat(lines(trickle ? trickling(text) : body(text), 16)).containsExactly("a", "b", "c", "d", "", "e");
    }

    @Test
    void returnsALastLineWithoutAnEndThenTheEnd() throws IOException {
        SseLines lines = new SseLines(body("last"), 16);
        assertThat(lines.next()).isEqualTo("last");
        assertThat(lines.next()).isNull();
        assertThat(lines.next()).isNull();
    }

    @Test
    void decodesUtf8AndCountsBytes() throws IOException {
        SseLines lines = new SseLines(body("h\u00e9\u20ac\n"), 16);
        assertThat(lines.next()).isEqualTo("h\u00e9\u20ac");
        assertThat(lines.lastLength()).isEqualTo(6);
    }

    @Test
    void acceptsALineAsLongAsTheBound() throws IOException {
        assertThat(lines(body("x".repeat(1000) + "\n"), 1000)).containsExactly("x".repeat(1000));
    }

    @Test
    void failsOnALineOneByteLongerThanTheBound() {
        assertThatExceptionOfType(NetworkException.class).isThrownBy(() -> lines(body("x".repeat(1001) + "\n"), 1000))
            .withMessage("The provider sent a server-sent events line longer than 1000 bytes");
    }
}
