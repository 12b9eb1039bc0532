package dev.inference.sample.openai;

import dev.inference.failure.HttpStatusException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The provider answered 200 but sent an error object, {@code {"error": {...}}}, in place of the
 * completion: as a stream's event or as the unary body. It is the provider's answer, not a
 * failure in transit, so it is classified as the provider classifies it: by the HTTP status the
 * error object carries ({@code status}, or a numeric {@code code}), or else by its identifiers
 * ({@code code}, then {@code type}), each mapped to the status the providers answer it with out of
 * band.
 *
 * <table>
 * <caption>The status of an error identifier</caption>
 * <tr><th>{@code code} or {@code type}</th><th>{@link #status()}</th><th>retried</th></tr>
 * <tr><td>{@code rate_limit_exceeded}, {@code rate_limit_error}</td><td>429</td><td>yes</td></tr>
 * <tr><td>{@code server_error}, {@code api_error}, {@code internal_error}</td><td>500</td><td>yes</td></tr>
 * <tr><td>{@code overloaded_error}, {@code overloaded}, {@code service_unavailable}</td><td>503</td>
 * <td>yes</td></tr>
 * <tr><td>{@code authentication_error}, {@code invalid_api_key}</td><td>401</td><td>no</td></tr>
 * <tr><td>{@code permission_error}</td><td>403</td><td>no</td></tr>
 * <tr><td>{@code not_found_error}, {@code model_not_found}</td><td>404</td><td>no</td></tr>
 * <tr><td>{@code request_too_large}</td><td>413</td><td>no</td></tr>
 * <tr><td>anything else, such as {@code invalid_request_error}, {@code context_length_exceeded} or
 * {@code insufficient_quota}, or none</td><td>400</td><td>no</td></tr>
 * </table>
 *
 * <p>So a retrying client retries exactly the transient ones, as it would the same errors sent
 * with their status. Only identifiers go into the message (an error's {@code message} may quote
 * the request); the provider's message is kept in {@link #providerMessage()}.
 */
public class ProviderErrorException extends HttpStatusException {

    private static final long serialVersionUID = 1L;

    /** Identifiers such as {@code rate_limit_exceeded}; anything else stays out of messages. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private static final Map<String, Integer> STATUS_OF_IDENTIFIER = Map.ofEntries(
            Map.entry("rate_limit_exceeded", 429), Map.entry("rate_limit_error", 429),
            Map.entry("server_error", 500), Map.entry("api_error", 500), Map.entry("internal_error", 500),
            Map.entry("overloaded_error", 503), Map.entry("overloaded", 503), Map.entry("service_unavailable", 503),
            Map.entry("authentication_error", 401), Map.entry("invalid_api_key", 401),
            Map.entry("permission_error", 403),
            Map.entry("not_found_error", 404), Map.entry("model_not_found", 404),
            Map.entry("request_too_large", 413));

    /** The status of an error that says nothing more specific: a request no retry can mend. */
    private static final int PERMANENT = 400;

    private final @Nullable String code;

    private final @Nullable String type;

    private final @Nullable String providerMessage;

    /**
     * Creates the exception.
     *
     * @param status the HTTP status that classifies the error, from 400 to 599
     * @param code the error's {@code code}, or {@code null}
     * @param type the error's {@code type}, or {@code null}
     * @param providerMessage the error's {@code message}, or {@code null}
     * @throws IllegalArgumentException if {@code status} is not from 400 to 599
     */
    public ProviderErrorException(int status, @Nullable String code, @Nullable String type,
            @Nullable String providerMessage) {
        super(checked(status), message(code, type), null);
        this.code = code;
        this.type = type;
        this.providerMessage = providerMessage;
    }

    /**
     * Classifies an error object's fields.
     *
     * @param status the HTTP status it carries, or {@code null}; used when from 400 to 599
     * @param code its {@code code}, or {@code null}
     * @param type its {@code type}, or {@code null}
     * @param providerMessage its {@code message}, or {@code null}
     * @return the exception, with the status the class documentation gives
     */
    static ProviderErrorException classify(@Nullable Integer status, @Nullable String code, @Nullable String type,
            @Nullable String providerMessage) {
        int classified;
        if (status != null && status >= 400 && status <= 599) {
            classified = status;
        }
        else {
            classified = statusOf(code).or(() -> statusOf(type)).orElse(PERMANENT);
        }
        return new ProviderErrorException(classified, code, type, providerMessage);
    }

    private static Optional<Integer> statusOf(@Nullable String identifier) {
        return (identifier != null)
                ? Optional.ofNullable(STATUS_OF_IDENTIFIER.get(identifier.toLowerCase(Locale.ROOT)))
                : Optional.empty();
    }

    private static int checked(int status) {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be an error status, from 400 to 599, was " + status);
        }
        return status;
    }

    private static String message(@Nullable String code, @Nullable String type) {
        String shownCode = shown(code);
        String shownType = shown(type);
        String identifiers;
        if (shownCode != null && shownType != null && !shownCode.equals(shownType)) {
            identifiers = shownCode + " (" + shownType + ")";
        }
        else if (shownCode != null || shownType != null) {
            identifiers = (shownCode != null) ? shownCode : shownType;
        }
        else {
            identifiers = "no code or type given";
        }
        return "The provider sent an error in place of the completion: " + identifiers;
    }

    private static @Nullable String shown(@Nullable String identifier) {
        return (identifier != null && IDENTIFIER.matcher(identifier).matches()) ? identifier : null;
    }

    /**
     * Returns the error's {@code code}, such as {@code context_length_exceeded}.
     *
     * @return the code, or empty when the error has none
     */
    public Optional<String> code() {
        return Optional.ofNullable(this.code);
    }

    /**
     * Returns the error's {@code type}, such as {@code invalid_request_error}.
     *
     * @return the type, or empty when the error has none
     */
    public Optional<String> type() {
        return Optional.ofNullable(this.type);
    }

    /**
     * Returns what the provider said about the error, for people. It may quote the request, so it
     * is not part of {@link #getMessage()}.
     *
     * @return the error's {@code message}, or empty when it has none
     */
    public Optional<String> providerMessage() {
        return Optional.ofNullable(this.providerMessage);
    }
}
