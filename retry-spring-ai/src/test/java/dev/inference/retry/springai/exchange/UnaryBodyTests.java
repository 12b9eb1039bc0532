package dev.inference.retry.springai.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UnaryBodyTests {

    private static final byte[] COMPLETION = "{\"choices\":[{\"message\":{\"content\":\"Hello\"}}]}"
        .getBytes(StandardCharsets.UTF_8);

    @Nested
    class OfAnnouncedLength {

        @Test
        void readsTheAnnouncedBytesIntoAnArrayOfThatLength() throws IOException {
            byte[] read = UnaryBody.read(new ByteArrayInputStream(COMPLETION), COMPLETION.length);

            assertThat(read).isEqualTo(COMPLETION).hasSize(COMPLETION.length);
        }

        @Test
        void leavesWhatFollowsTheAnnouncedBytesToTheReaderAfterTheAttempt() throws IOException {
            InputStream body = new ByteArrayInputStream(COMPLETION);

            byte[] read = UnaryBody.read(body, 10);

            assertThat(read).isEqualTo(Arrays.copyOf(COMPLETION, 10));
            assertThat(body.readAllBytes()).hasSize(COMPLETION.length - 10);
        }

        @Test
        void returnsWhatArrivedWhenTheBodyEndsBeforeTheAnnouncedLength() throws IOException {
            byte[] read = UnaryBody.read(new ByteArrayInputStream(COMPLETION), COMPLETION.length + 100);

            assertThat(read).isEqualTo(COMPLETION);
        }

        @Test
        void throwsWhatReadingTheBodyThrew() {
            InputStream broken = new InputStream() {

                @Override
                public int read() throws IOException {
                    throw new IOException("Connection reset");
                }
            };

            assertThatIOException().isThrownBy(() -> UnaryBody.read(broken, 10)).withMessage("Connection reset");
        }

        @ParameterizedTest(name = "announced {0}")
        @ValueSource(longs = { -1, UnaryBody.SIZED_LIMIT + 1L })
        void readsABodyOfUnknownOrLargeAnnouncedLengthToItsEnd(long announced) throws IOException {
            byte[] read = UnaryBody.read(new ByteArrayInputStream(COMPLETION), announced);

            assertThat(read).isEqualTo(COMPLETION);
        }
    }

    @Nested
    class AnnouncedLength {

        @Test
        void isTheValueOfTheOneContentLength() {
            assertThat(UnaryBody.announcedLength(List.of(" 1234 "))).isEqualTo(1234);
        }

        @Test
        void isUnknownWithoutAContentLength() {
            assertThat(UnaryBody.announcedLength(List.of())).isEqualTo(-1);
        }

        @Test
        void isUnknownForSeveralContentLengths() {
            assertThat(UnaryBody.announcedLength(List.of("12", "12"))).isEqualTo(-1);
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "", "-5", "12a", "1.5", "+7", "9999999999999999999" })
        void isUnknownForAValueThatIsNotALength(String value) {
            assertThat(UnaryBody.announcedLength(List.of(value))).isEqualTo(-1);
        }
    }
}
