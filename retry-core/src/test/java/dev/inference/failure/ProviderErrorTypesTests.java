package dev.inference.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.Classification;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProviderErrorTypesTests {

    @Nested
    class OneType {

        @ParameterizedTest(name = "{0} is {1}")
        @CsvSource({ "rate_limit, 429", "rate_limit_error, 429", "rate_limit_exceeded, 429", "server_error, 500",
                "api_error, 500", "internal_error, 500", "overloaded, 503", "overloaded_error, 503",
                "server_overloaded, 503", "service_unavailable, 503", "RESOURCE_EXHAUSTED, 429", "INTERNAL, 500",
                "UNAVAILABLE, 503", "DEADLINE_EXCEEDED, 504" })
        void givesATransientTypeItsRetriedStatus(String type, int status) {
            assertThat(ProviderErrorTypes.transientStatus(type)).hasValue(status);
            assertThat(ProviderErrorTypes.status(type)).hasValue(status);
            assertThat(Classification.isRetryable(new HttpStatusException(status, type, null))).isTrue();
        }

        @ParameterizedTest(name = "{0} is {1}")
        @CsvSource({ "authentication_error, 401", "invalid_api_key, 401", "permission_error, 403",
                "not_found_error, 404", "model_not_found, 404", "request_too_large, 413", "UNAUTHENTICATED, 401",
                "PERMISSION_DENIED, 403", "NOT_FOUND, 404" })
        void givesAPermanentTypeItsStatusButNoTransientOne(String type, int status) {
            assertThat(ProviderErrorTypes.status(type)).hasValue(status);
            assertThat(ProviderErrorTypes.transientStatus(type)).isEmpty();
            assertThat(Classification.isRetryable(new HttpStatusException(status, type, null))).isFalse();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = { "Overloaded_Error", "RATE_LIMIT_EXCEEDED", "Server_Error" })
        void matchesWhateverTheCase(String type) {
            assertThat(ProviderErrorTypes.transientStatus(type)).isPresent();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @NullSource
        @ValueSource(strings = { "invalid_request_error", "context_length_exceeded", "insufficient_quota", "error",
                "", " overloaded", "rate-limit", "INVALID_ARGUMENT", "FAILED_PRECONDITION", "UNKNOWN", "UNIMPLEMENTED" })
        void knowsNoStatusOfATypeItDoesNotList(String type) {
            assertThat(ProviderErrorTypes.status(type)).isEmpty();
            assertThat(ProviderErrorTypes.transientStatus(type)).isEmpty();
        }
    }

    @Nested
    class TypeAndCode {

        @Test
        void letsTheTypeDecideWhenTheTableKnowsIt() {
            assertThat(ProviderErrorTypes.transientStatus("server_error", "rate_limit_exceeded")).hasValue(500);
        }

        @Test
        void letsTheCodeDecideWhenTheTypeIsUnknown() {
            assertThat(ProviderErrorTypes.transientStatus("requests", "rate_limit_exceeded")).hasValue(429);
        }

        @Test
        void letsTheCodeDecideWhenThereIsNoType() {
            assertThat(ProviderErrorTypes.transientStatus(null, "overloaded")).hasValue(503);
        }

        @Test
        void keepsAPermanentTypePermanentWhateverTheCode() {
            assertThat(ProviderErrorTypes.transientStatus("authentication_error", "rate_limit_exceeded")).isEmpty();
            assertThat(ProviderErrorTypes.status("authentication_error", "rate_limit_exceeded")).hasValue(401);
        }

        @Test
        void givesThePermanentStatusOfACodeBehindAnUnknownType() {
            assertThat(ProviderErrorTypes.status("invalid_request_error", "model_not_found")).hasValue(404);
            assertThat(ProviderErrorTypes.transientStatus("invalid_request_error", "model_not_found")).isEmpty();
        }

        @Test
        void knowsNoStatusWhenNeitherIsListed() {
            assertThat(ProviderErrorTypes.status("invalid_request_error", "context_length_exceeded")).isEmpty();
            assertThat(ProviderErrorTypes.transientStatus(null, null)).isEmpty();
        }
    }
}
