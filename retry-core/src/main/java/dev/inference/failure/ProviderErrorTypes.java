package dev.inference.failure;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The error types that providers send in-band, as a stream's error event or as the error object of
 * a body, in place of an error status: for each, the HTTP status it stands for and whether it is
 * transient. The one table that every transport consults, so that an error sent in-band is retried
 * exactly as the same error sent with its status would be. The table, as users read it, is in
 * {@code docs/core-api.md} ("Errors sent in-band"); the maps below are its source.
 *
 * <p>Matching ignores case (OpenAI's {@code type} or {@code code}, Anthropic's {@code type}, Google's
 * {@code status}). Traps: a type the table does not know ({@code invalid_request_error},
 * {@code context_length_exceeded}, Google's {@code INVALID_ARGUMENT}, a new one), or none, is
 * permanent and stands for no status of its own; a transport that must give it one gives 400. A
 * {@linkplain #isQuotaExceeded quota error} ({@code insufficient_quota}) comes with a 429 but is no
 * rate limit: no wait helps until the account's billing changes, so it stands for no status here (a
 * 429 would be retried) and a transport makes it a {@link QuotaExceededException}.
 */
public final class ProviderErrorTypes {

    private static final Map<String, Integer> TRANSIENT = Map.ofEntries(
            Map.entry("rate_limit", 429), Map.entry("rate_limit_error", 429), Map.entry("rate_limit_exceeded", 429),
            Map.entry("resource_exhausted", 429),
            Map.entry("server_error", 500), Map.entry("api_error", 500), Map.entry("internal_error", 500),
            Map.entry("internal", 500),
            Map.entry("overloaded", 503), Map.entry("overloaded_error", 503), Map.entry("server_overloaded", 503),
            Map.entry("service_unavailable", 503), Map.entry("unavailable", 503),
            Map.entry("deadline_exceeded", 504));

    private static final Map<String, Integer> PERMANENT = Map.ofEntries(
            Map.entry("authentication_error", 401), Map.entry("invalid_api_key", 401),
            Map.entry("unauthenticated", 401),
            Map.entry("permission_error", 403), Map.entry("permission_denied", 403),
            Map.entry("not_found_error", 404), Map.entry("model_not_found", 404), Map.entry("not_found", 404),
            Map.entry("request_too_large", 413));

    /** Types and codes that say the account's quota is used up (OpenAI's, with a 429). */
    private static final Set<String> QUOTA = Set.of("insufficient_quota");

    private ProviderErrorTypes() {
    }

    /**
     * Tells whether an error says that the account's quota is used up, by its type or its code (OpenAI
     * sends {@code {"type": "insufficient_quota", "code": "insufficient_quota"}} with a 429), whatever
     * status it came with: a failure that no retry and no wait mends, which a transport reports as a
     * {@link QuotaExceededException}.
     *
     * @param type the error's type, or {@code null}
     * @param code the error's code, or {@code null}
     * @return {@code true} when either is a quota error's
     */
    public static boolean isQuotaExceeded(@Nullable String type, @Nullable String code) {
        return isIn(QUOTA, type) || isIn(QUOTA, code);
    }

    /**
     * Returns the typed failure of an error that says the account's quota is used up, as
     * {@link #isQuotaExceeded} decides: final, never retried, and no cool-down.
     *
     * @param status the HTTP status the error came with, from 100 to 999
     * @param type the error's type, or {@code null}
     * @param code the error's code, or {@code null}
     * @param message the provider's message, or {@code null}
     * @return the failure with the provider's message (or, when it gave none, one that says what
     *     happened) and the quota code it gave; empty when the error is not a quota error
     * @throws IllegalArgumentException if {@code status} is not a three-digit code
     */
    public static Optional<QuotaExceededException> quotaExceeded(int status, @Nullable String type,
            @Nullable String code, @Nullable String message) {
        String identifier = isIn(QUOTA, code) ? code : isIn(QUOTA, type) ? type : null;
        if (identifier == null) {
            return Optional.empty();
        }
        return Optional.of(new QuotaExceededException(status, identifier, (message != null) ? message
                : "The provider answered " + status + " (" + identifier + "): the account's quota is used up"));
    }

    /**
     * Returns the HTTP status that an in-band error type stands for, transient or not.
     *
     * @param type the error's type (or code), or {@code null} when it has none
     * @return the status the table gives, or empty for a type the table does not know, or none
     */
    public static OptionalInt status(@Nullable String type) {
        OptionalInt status = lookUp(TRANSIENT, type);
        return status.isPresent() ? status : lookUp(PERMANENT, type);
    }

    /**
     * Returns the HTTP status of an in-band error that has both a type and a code, such as OpenAI's
     * {@code {"type": "requests", "code": "rate_limit_exceeded"}}: the type decides when the table
     * knows it, the code otherwise.
     *
     * @param type the error's type, or {@code null}
     * @param code the error's code, or {@code null}
     * @return the status the table gives for the type, else for the code, else empty
     */
    public static OptionalInt status(@Nullable String type, @Nullable String code) {
        OptionalInt status = status(type);
        return status.isPresent() ? status : status(code);
    }

    /**
     * Returns the HTTP status that an in-band error type stands for when it is transient: the status
     * under which a retry decorator retries the error.
     *
     * @param type the error's type (or code), or {@code null} when it has none
     * @return 429, 500, 503 or 504 as the table gives, or empty when the type is permanent, unknown or
     *     absent
     */
    public static OptionalInt transientStatus(@Nullable String type) {
        return lookUp(TRANSIENT, type);
    }

    /**
     * Returns the HTTP status of an in-band error with a type and a code when it is transient,
     * deciding as {@link #status(String, String)} does: the type first, when the table knows it
     * (so a permanent type is not made transient by its code), the code otherwise.
     *
     * @param type the error's type, or {@code null}
     * @param code the error's code, or {@code null}
     * @return 429, 500, 503 or 504 as the table gives, or empty when the error is permanent, unknown or
     *     untyped
     */
    public static OptionalInt transientStatus(@Nullable String type, @Nullable String code) {
        return status(type).isPresent() ? transientStatus(type) : transientStatus(code);
    }

    private static boolean isIn(Set<String> types, @Nullable String type) {
        return type != null && types.contains(type.toLowerCase(Locale.ROOT));
    }

    private static OptionalInt lookUp(Map<String, Integer> table, @Nullable String type) {
        Integer status = (type != null) ? table.get(type.toLowerCase(Locale.ROOT)) : null;
        return (status != null) ? OptionalInt.of(status) : OptionalInt.empty();
    }
}
