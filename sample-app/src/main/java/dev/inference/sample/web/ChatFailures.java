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
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "The provider "
                    + "still failed after " + exhausted.attempts() + " attempts: " + exhausted.getCause().getMessage());
            problem.setTitle("Provider unavailable");
            problem.setProperty("attempts", exhausted.attempts());
            return problem;
        }
        Classification classification = Classification.of(failure);
        if (classification.kind() == Classification.Kind.QUOTA
                && classification.decidingCause().orElse(failure) instanceof QuotaExceededException quota) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, quota.getMessage());
            problem.setTitle("Provider quota exceeded");
            problem.setProperty("providerStatus", quota.status());
            return problem;
        }
        if (failure instanceof HttpStatusException status) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, status.getMessage());
            problem.setTitle("Provider error");
            problem.setProperty("providerStatus", status.status());
            return problem;
        }
        if (failure instanceof OpenAIServiceException service) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, service.getMessage());
            problem.setTitle("Provider error");
            problem.setProperty("providerStatus", service.statusCode());
            return problem;
        }
        if (failure instanceof NetworkException || failure instanceof OpenAIIoException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, failure.getMessage());
            problem.setTitle("Provider connection failed");
            return problem;
        }
        if (failure instanceof OpenAIException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, failure.getMessage());
            problem.setTitle("Provider error");
            return problem;
        }
        if (failure instanceof ShutdownException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                    "This instance is shutting down and will not retry the call; try again, another instance "
                            + "will answer: " + failure.getMessage());
            problem.setTitle("Shutting down");
            return problem;
        }
        if (failure instanceof StreamStalledException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.GATEWAY_TIMEOUT, failure.getMessage());
            problem.setTitle("Provider stream stalled");
            return problem;
        }
        if (failure instanceof DeadlineExceededException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.GATEWAY_TIMEOUT, failure.getMessage());
            problem.setTitle("Deadline exceeded");
            return problem;
        }
        if (failure instanceof CancellationException) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                    Objects.requireNonNullElse(failure.getMessage(), "The call was cancelled"));
            problem.setTitle("Call cancelled");
            return problem;
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "The call failed: " + failure.getClass().getSimpleName());
        problem.setTitle("Inference call failed");
        return problem;
    }
}
