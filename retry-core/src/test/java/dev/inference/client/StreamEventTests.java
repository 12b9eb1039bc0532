package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;

class StreamEventTests {

    @Test
    void keepsItsData() {
        assertThat(StreamEvent.of("Hel").data()).isEqualTo("Hel");
    }

    @Test
    void acceptsEmptyData() {
        assertThat(StreamEvent.of("").data()).isEmpty();
    }

    @Test
    void refusesNullData() {
        assertThatNullPointerException().isThrownBy(() -> StreamEvent.of(null)).withMessage("data must not be null");
    }

    @Test
    void equalsAnEventWithTheSameData() {
        assertThat(StreamEvent.of("Hel")).isEqualTo(StreamEvent.of("Hel"))
            .hasSameHashCodeAs(StreamEvent.of("Hel"))
            .isNotEqualTo(StreamEvent.of("lo"));
    }

    @Test
    void hashesEventsWithDifferentDataApart() {
        assertThat(StreamEvent.of("Hel")).doesNotHaveSameHashCodeAs(StreamEvent.of("lo"));
    }

    @Test
    void leavesTheDataOutOfItsDescription() {
        assertThat(StreamEvent.of("secret")).hasToString("StreamEvent[data=6 chars]");
    }
}
