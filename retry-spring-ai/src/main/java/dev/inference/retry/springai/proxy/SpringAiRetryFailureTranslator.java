package dev.inference.retry.springai.proxy;

import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.exchange.TypedFailures;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;

/**
 * Knows the exceptions of Spring AI's {@code spring-ai-retry}, which the error handlers of the models on
 * it throw with the status only in their message ({@code "503 - body"} or {@code "HTTP 503 - body"}) and
 * no headers, so with no {@code Retry-After}:
 * <ul>
 * <li>a {@link TransientAiException} is retried: it is the status failure of the status in its message,
 * which the core retries when the status is one it retries (so a 400 that an application configured as
 * transient is still not retried), or a network failure when its message names no status;</li>
 * <li>a {@link NonTransientAiException} is permanent: the status failure of a 4xx status in its message;
 * with any other message it is not known here, and so permanent as an unknown exception.</li>
 * </ul>
 * Loaded only when {@code spring-ai-retry} is on the class path.
 */
final class SpringAiRetryFailureTranslator implements ChatModelFailureTranslator {

    /** How Spring AI's error handlers begin their messages: the status, with or without "HTTP ". */
    private static final Pattern STATUS = Pattern.compile("^(?:HTTP )?([1-9]\\d\\d) - ");

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (failure instanceof TransientAiException) {
            Integer status = status(failure.getMessage());
            return Optional.of((status != null) ? TypedFailures.status(status, failure) : TypedFailures.network(failure));
        }
        if (failure instanceof NonTransientAiException) {
            Integer status = status(failure.getMessage());
            return (status != null && status >= 400 && status <= 499) ? Optional.of(TypedFailures.status(status, failure))
                    : Optional.empty();
        }
        return Optional.empty();
    }

    private static @Nullable Integer status(@Nullable String message) {
        if (message == null) {
            return null;
        }
        Matcher matcher = STATUS.matcher(message);
        return matcher.find() ? Integer.valueOf(matcher.group(1)) : null;
    }

    @Override
    public String toString() {
        return "SpringAiRetryFailureTranslator";
    }
}
