package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.inference.failure.HttpStatusException;
import dev.inference.fixtures.ScriptedReader;
import org.junit.jupiter.api.Test;

class HalfOpenStreamExceptionTests {

    private final StreamReader reader = ScriptedReader.completing();

    private final HttpStatusException unavailable = new HttpStatusException(503, "unavailable", null);

    @Test
    void carriesTheReaderAndTheTypedCause() {
        HalfOpenStreamException ex = new HalfOpenStreamException(this.reader, this.unavailable);
        assertThat(ex.reader()).isSameAs(this.reader);
        assertThat(ex.getCause()).isSameAs(this.unavailable);
    }

    @Test
    void namesTheCauseInItsMessage() {
        assertThat(new HalfOpenStreamException(this.reader, this.unavailable)).hasMessage(
                "stream establishment failed after a reader was created: "
                        + "dev.inference.failure.HttpStatusException: unavailable");
    }

    @Test
    void refusesANullReader() {
        assertThatNullPointerException().isThrownBy(() -> new HalfOpenStreamException(null, this.unavailable))
            .withMessage("reader must not be null");
    }

    @Test
    void refusesANullCause() {
        assertThatNullPointerException().isThrownBy(() -> new HalfOpenStreamException(this.reader, null))
            .withMessage("cause must not be null");
    }
}
