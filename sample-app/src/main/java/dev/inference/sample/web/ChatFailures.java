package dev.inference.sample.web;

import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import dev.inference.failure.DeadlineExceededException;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.failure.ShutdownException;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the failures of inference calls into RFC 9457 problem details: 503 when the provider kept
 * failing until the retries ran out (with their number as {@code attempts}) or when this instance is
 * shutting down and ended the call's wait before a retry, 502 when it failed in a way no retry can
 * mend (titled "Provider quota exceeded", with the provider's message, when the account's quota is used
 * up, whether the sample's client or the OpenAI SDK, with the typed failure beneath, threw it), 504 when
 * the call's deadline passed, and 503 when the call was cancelled on this side (the
 * request's thread interrupted), which is no failure of the provider's. The same details describe a
 * stream that fails once it is under way, in its {@code error} event.
 *
 * <p>The Spring AI calls fail the same ways: the starter retries beneath the OpenAI chat model, which
 * throws its retrier's {@link ExhaustedException}, {@link ShutdownException} or
 * {@link CancellationException} as they are (a stream signals them wrapped in a
 * {@link CompletionException}, which is unwrapped here), and a failure no retry can mend as the OpenAI
 * SDK threw it: an {@link OpenAIServiceException} carries the provider's status, an
 * {@link OpenAIIoException} a failed connection.
 */
@RestControllerAdvice
class ChatFailures {

    @ExceptionHandler({ ExhaustedException.class, HttpStatusException.class, NetworkException.class,
            QuotaExceededException.class,
            DeadlineExceededException.class, ShutdownException.class, CancellationException.class,
            CompletionException.class, OpenAIException.class })
    ProblemDetail inferenceFailed(RuntimeException ex) {
        return problem(ex);
    }

    /**
     * Describes a failure of an inference call.
     *
     * @param failure what the call threw
     * @return the problem detail; 500 for a failure that is not one of the typed ones
     */
    static ProblemDetail problem(RuntimeException failure) {
        if (failure instanceof CompletionException completion
                && completion.getCause() instanceof RuntimeException cause) {
            return problem(cause);
        }
        if (failure instanceof ExhaustedException exhausted) {
            return with(problem(HttpStatus.SERVICE_UNAVAILABLE, "Provider unavailable",
                    "The provider still failed after " + exhausted.attempts() + " attempts: "
                            + exhausted.getCause().getMessage()),
                    "attempts", exhausted.attempts());
        }
        Classification classification = Classification.of(failure);
        if (classification.kind() == Classification.Kind.QUOTA
                && classification.decidingCause().orElse(failure) instanceof QuotaExceededException quota) {
            return with(problem(HttpStatus.BAD_GATEWAY, "Provider quota exceeded", quota.getMessage()),
                    "providerStatus", quota.status());
        }
        if (failure instanceof HttpStatusException status) {
            return with(problem(HttpStatus.BAD_GATEWAY, "Provider error", status.getMessage()),
                    "providerStatus", status.status());
        }
        if (failure instanceof OpenAIServiceException service) {
            return with(problem(HttpStatus.BAD_GATEWAY, "Provider error", service.getMessage()),
                    "providerStatus", service.statusCode());
        }
        if (failure instanceof NetworkException || failure instanceof OpenAIIoException) {
            return problem(HttpStatus.BAD_GATEWAY, "Provider connection failed", failure.getMessage());
        }
        if (failure instanceof OpenAIException) {
            return problem(HttpStatus.BAD_GATEWAY, "Provider error", failure.getMessage());
        }
        if (failure instanceof ShutdownException) {
            return problem(HttpStatus.SERVICE_UNAVAILABLE, "Shutting down", "This instance is shutting down and will "
                    + "not retry the call; try again, another instance will answer: " + failure.getMessage());
        }
        if (failure instanceof StreamStalledException) {
            return problem(HttpStatus.GATEWAY_TIMEOUT, "Provider stream stalled", failure.getMessage());
        }
        if (failure instanceof DeadlineExceededException) {
            return problem(HttpStatus.GATEWAY_TIMEOUT, "Deadline exceeded", failure.getMessage());
        }
        if (failure instanceof CancellationException) {
            return problem(HttpStatus.SERVICE_UNAVAILABLE, "Call cancelled",
                    Objects.requireNonNullElse(failure.getMessage(), "The call was cancelled"));
        }
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Inference call failed",
                "The call failed: " + failure.getClass().getSimpleName());
    }

    private static ProblemDetail problem(HttpStatus status, String title, @Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }

    private static ProblemDetail with(ProblemDetail problem, String property, Object value) {
        problem.setProperty(property, value);
        return problem;
    }
}
