package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InferenceRequestTests {

    @Test
    void keepsTheModelAndInput() {
        InferenceRequest request = InferenceRequest.of("gpt-test", "Say hello");
        assertThat(request.model()).isEqualTo("gpt-test");
        assertThat(request.input()).isEqualTo("Say hello");
    }

    @Test
    void acceptsAnEmptyInput() {
        assertThat(InferenceRequest.of("gpt-test", "").input()).isEmpty();
    }

    @Test
    void refusesANullModel() {
        assertThatNullPointerException().isThrownBy(() -> InferenceRequest.of(null, "Say hello"))
            .withMessage("model must not be null");
    }

    @Test
    void refusesANullInput() {
        assertThatNullPointerException().isThrownBy(() -> InferenceRequest.of("gpt-test", null))
            .withMessage("input must not be null");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = { "", " ", "\t\n" })
    void refusesABlankModel(String model) {
        assertThatIllegalArgumentException().isThrownBy(() -> InferenceRequest.of(model, "Say hello"))
            .withMessage("model must not be blank");
    }

    @Test
    void equalsARequestWithTheSameModelAndInput() {
        assertThat(InferenceRequest.of("gpt-test", "Say hello")).isEqualTo(InferenceRequest.of("gpt-test", "Say hello"))
            .hasSameHashCodeAs(InferenceRequest.of("gpt-test", "Say hello"))
            .isNotEqualTo(InferenceRequest.of("gpt-test", "Say goodbye"))
            .isNotEqualTo(InferenceRequest.of("gpt-other", "Say hello"));
    }

    @Test
    void hashesRequestsThatDifferInModelOrInputApart() {
        assertThat(List.of(InferenceRequest.of("gpt-test", "Say hello"), InferenceRequest.of("gpt-test", "Say goodbye"),
                InferenceRequest.of("gpt-other", "Say hello")))
            .extracting(InferenceRequest::hashCode)
            .doesNotHaveDuplicates();
    }

    @Test
    void leavesTheInputOutOfItsDescription() {
        assertThat(InferenceRequest.of("gpt-test", "my password is hunter2"))
            .hasToString("InferenceRequest[model=gpt-test, input=22 chars]");
    }
}
