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

    @Nested
    class Quota {

        @ParameterizedTest(name = "type \"{0}\", code \"{1}\"")
        @CsvSource(nullValues = "null", value = { "insufficient_quota,insufficient_quota", "null,insufficient_quota",
                "insufficient_quota,null", "INSUFFICIENT_QUOTA,null", "requests,Insufficient_Quota" })
        void knowsAUsedUpQuotaByItsTypeOrItsCode(String type, String code) {
            assertThat(ProviderErrorTypes.isQuotaExceeded(type, code)).isTrue();
        }

        @ParameterizedTest(name = "type \"{0}\", code \"{1}\"")
        @CsvSource(nullValues = "null", value = { "requests,rate_limit_exceeded", "null,null", "tokens,null",
                "insufficient_quotas,null", "null,quota", "' insufficient_quota',null" })
        void knowsEveryOtherErrorIsNoQuotaError(String type, String code) {
            assertThat(ProviderErrorTypes.isQuotaExceeded(type, code)).isFalse();
            assertThat(ProviderErrorTypes.quotaExceeded(429, type, code, "message")).isEmpty();
        }

        @Test
        void givesAQuotaErrorNoStatusSoThatNoTransportRetriesIt() {
            assertThat(ProviderErrorTypes.status("insufficient_quota", "insufficient_quota")).isEmpty();
            assertThat(ProviderErrorTypes.transientStatus("requests", "insufficient_quota")).isEmpty();
        }

        @Test
        void makesTheTypedFailureWithTheProvidersMessageAndCode() {
            assertThat(ProviderErrorTypes.quotaExceeded(429, "insufficient_quota", "insufficient_quota",
                    "You exceeded your current quota.")).hasValueSatisfying((quota) -> {
                        assertThat(quota).hasMessage("You exceeded your current quota.").hasNoCause();
                        assertThat(quota.status()).isEqualTo(429);
                        assertThat(quota.code()).isEqualTo("insufficient_quota");
                    });
        }

        @Test
        void takesTheCodeThatSaysQuota() {
            assertThat(ProviderErrorTypes.quotaExceeded(429, "requests", "INSUFFICIENT_QUOTA", "m"))
                .hasValueSatisfying((quota) -> assertThat(quota.code()).isEqualTo("INSUFFICIENT_QUOTA"));
            assertThat(ProviderErrorTypes.quotaExceeded(429, "insufficient_quota", "other", "m"))
                .hasValueSatisfying((quota) -> assertThat(quota.code()).isEqualTo("insufficient_quota"));
        }

        @Test
        void saysWhatHappenedWhenTheProviderGaveNoMessage() {
            assertThat(ProviderErrorTypes.quotaExceeded(429, null, "insufficient_quota", null))
                .hasValueSatisfying((quota) -> assertThat(quota)
                    .hasMessage("The provider answered 429 (insufficient_quota): the account's quota is used up"));
        }
    }
}
