package dev.inference.sample.openai;

import dev.inference.failure.HttpStatusException;
import dev.inference.failure.ProviderErrorTypes;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The provider answered 200 but sent an error object, {@code {"error": {...}}}, in place of the
 * completion: as a stream's event or as the unary body. It is the provider's answer, not a
 * failure in transit, so it is classified as the provider classifies it: by the HTTP status the
 * error object carries ({@code status}, or a numeric {@code code}), or else by its identifiers
 * ({@code type}, then {@code code}), each mapped to the status the providers answer it with out of
 * band by the core's table, {@link ProviderErrorTypes}; an identifier the table does not know, or
 * none, stands for 400.
 *
 * <p>So a retrying client retries exactly the transient ones, as it would the same errors sent
 * with their status. Only identifiers go into the message (an error's {@code message} may quote
 * the request); the provider's message is kept in {@link #providerMessage()}.
 */
public class ProviderErrorException extends HttpStatusException {

    private static final long serialVersionUID = 1L;

    /** Identifiers such as {@code rate_limit_exceeded}; anything else stays out of messages. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

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
            classified = ProviderErrorTypes.status(type, code).orElse(PERMANENT);
        }
        return new ProviderErrorException(classified, code, type, providerMessage);
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
