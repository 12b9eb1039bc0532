package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class NetworkExceptionTests {

    @Test
    void carriesTheMessageAndTheTransportsCause() {
        IOException reset = new IOException("Connection reset");
        assertThat(new NetworkException("connection reset by provider", reset)).hasMessage("connection reset by provider")
            .cause()
            .isSameAs(reset);
    }

    @Test
    void mayHaveNoCause() {
        assertThat(new NetworkException("unexpected end of stream", null)).hasNoCause();
    }
}
