package dev.inference.sample.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import dev.inference.failure.ShutdownException;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.ProblemDetail;

/**
 * How {@link ChatFailures} describes the failures that reach the sample from Spring AI's OpenAI chat
 * model, as the OpenAI SDK throws them or as a stream signals them.
 */
class ChatFailuresTests {

    @Test
    void describesTheFailureAStreamSignalsInsideACompletionException() {
        ProblemDetail problem = ChatFailures.problem(new CompletionException(
                new ShutdownException("The application is shutting down: the wait before attempt 2 was ended")));

        assertThat(problem.getStatus()).isEqualTo(503);
        assertThat(problem.getTitle()).isEqualTo("Shutting down");
    }

    @ParameterizedTest
    @MethodSource("sdkFailures")
    void answersAFailureOfTheSdkThatNoRetryMendsAs502(RuntimeException failure, String title) {
        ProblemDetail problem = ChatFailures.problem(failure);

        assertThat(problem.getStatus()).isEqualTo(502);
        assertThat(problem.getTitle()).isEqualTo(title);
        assertThat(problem.getDetail()).isEqualTo(failure.getMessage());
    }

    static Stream<Arguments> sdkFailures() {
        return Stream.of(
                Arguments.of(new OpenAIIoException("Connection reset"), "Provider connection failed"),
                Arguments.of(new OpenAIInvalidDataException("Error reading response"), "Provider error"));
    }
}
