package dev.inference.sample.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProviderErrorExceptionTests {

    @ParameterizedTest
    @ValueSource(ints = { 200, 302, 399, 600 })
    void refusesAStatusThatIsNotAnError(int status) {
        assertThatIllegalArgumentException().isThrownBy(() -> new ProviderErrorException(status, null, null, null))
            .withMessage("status must be an error status, from 400 to 599, was " + status);
    }

    @Test
    void namesTheCodeAndTheTypeWhenTheyDiffer() {
        assertThat(new ProviderErrorException(429, "rate_limit_exceeded", "requests", "Slow down"))
            .hasMessage("The provider sent an error in place of the completion: rate_limit_exceeded (requests)");
    }

    @Test
    void namesOneIdentifierOnce() {
        assertThat(new ProviderErrorException(400, "insufficient_quota", "insufficient_quota", null))
            .hasMessage("The provider sent an error in place of the completion: insufficient_quota");
    }

    @Test
    void saysSoWhenTheErrorNamesNothing() {
        assertThat(new ProviderErrorException(400, null, null, "Something went wrong"))
            .hasMessage("The provider sent an error in place of the completion: no code or type given")
            .satisfies((ex) -> {
                assertThat(ex.code()).isEmpty();
                assertThat(ex.type()).isEmpty();
                assertThat(ex.providerMessage()).contains("Something went wrong");
            });
    }

    @Test
    void matchesIdentifiersWhateverTheirCase() {
        assertThat(ProviderErrorException.classify(null, null, "Overloaded_Error", null).status()).isEqualTo(503);
    }
}
