package dev.inference.retry.springai;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Reports a chat model whose provider client would retry each exchange itself
 * ({@link ChatModelClientRetriesException}): the bean, the property and its value in effect, where it
 * was set, and the fix.
 */
class ChatModelRetryFailureAnalyzer extends AbstractFailureAnalyzer<ChatModelClientRetriesException> {

    private final @Nullable Environment environment;

    ChatModelRetryFailureAnalyzer(@Nullable Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ChatModelClientRetriesException cause) {
        StringBuilder description = new StringBuilder("The chat model bean '").append(cause.beanName())
            .append("' is retried by inference-retry, and its provider client would retry each exchange too:")
            .append("\n\n    Property: ").append(cause.property())
            .append("\n    Value in effect: ").append(cause.maxRetries());
        Origin origin = originOf(cause.property());
        if (origin != null) {
            description.append("\n    Origin: ").append(origin);
        }
        description.append("\n    Reason: each attempt would make up to ").append(cause.maxRetries() + 1)
            .append(" requests, so the attempts would multiply");
        return new FailureAnalysis(description.toString(), cause.action(), cause);
    }

    /** Where the property in effect was set, when it was set at all (the starter's default has no origin). */
    private @Nullable Origin originOf(String property) {
        if (this.environment == null) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.adapt(property, '.');
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found.getOrigin();
            }
        }
        return null;
    }
}
