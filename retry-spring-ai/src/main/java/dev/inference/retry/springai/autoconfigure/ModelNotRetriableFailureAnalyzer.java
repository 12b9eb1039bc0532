package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.springai.ModelNotRetriableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a Spring AI model bean that the application asked to retry and that cannot be
 * ({@link ModelNotRetriableException}): the bean, why, and the properties that start the application
 * without retrying it.
 */
public class ModelNotRetriableFailureAnalyzer extends AbstractFailureAnalyzer<ModelNotRetriableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ModelNotRetriableException cause) {
        String bean = cause.beanName();
        String description = "The " + cause.kind() + " bean '" + bean + "' is to be retried by inference-retry, and "
                + "cannot be:\n\n    " + cause.getMessage();
        String action = "Make the bean's class one that can be retried, as the description says, or leave the bean "
                + "unretried: set inference.retry.clients." + bean + ".enabled=false (or "
                + "inference.retry.spring-ai.enabled=false for every Spring AI model).";
        return new FailureAnalysis(description, action, cause);
    }
}
