package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.StreamEvent;
import dev.inference.client.StreamResult;
import dev.inference.failure.NetworkException;
import dev.inference.fixtures.ScriptedReader;
import org.junit.jupiter.api.Test;

class StampedStreamReaderTests {

    @Test
    void passesEventsThroughAndStampsTheResult() {
        StampedStreamReader reader = new StampedStreamReader(ScriptedReader.completing("Hel", "lo"), 2);
        assertThat(reader.hasNext()).isTrue();
        assertThat(reader.next()).isEqualTo(StreamEvent.of("Hel"));
        assertThat(reader.next()).isEqualTo(StreamEvent.of("lo"));
        assertThat(reader.hasNext()).isFalse();
        assertThat(reader.result()).isEqualTo(StreamResult.completed().withAttempts(2));
    }

    @Test
    void passesAMidStreamFailureThroughAndStampsTheFailedResult() {
        NetworkException dropped = new NetworkException("connection dropped", null);
        StampedStreamReader reader = new StampedStreamReader(ScriptedReader.failingAfter(dropped), 3);
        assertThat(catchThrowable(reader::next)).isSameAs(dropped);
        assertThat(reader.result()).isEqualTo(StreamResult.failed(dropped).withAttempts(3));
    }

    @Test
    void refusesAResultBeforeTheEnd() {
        StampedStreamReader reader = new StampedStreamReader(ScriptedReader.completing("Hel"), 1);
        assertThatIllegalStateException().isThrownBy(reader::result).withMessage("The stream has not ended yet");
    }

    @Test
    void describesItsAttemptsAndDelegate() {
        ScriptedReader delegate = ScriptedReader.completing();
        assertThat(new StampedStreamReader(delegate, 2))
            .hasToString("StampedStreamReader[attempts=2, delegate=" + delegate + "]");
    }

    @Test
    void closesTheDelegate() {
        ScriptedReader delegate = ScriptedReader.completing();
        new StampedStreamReader(delegate, 1).close();
        assertThat(delegate.closes()).isEqualTo(1);
    }
}
