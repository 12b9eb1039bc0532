package dev.inference.sample;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Matches when the embedded provider is to run: no {@code sample.inference.base-url} is set and
 * {@code sample.provider.enabled} is not {@code false}.
 */
class OnEmbeddedProviderCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Environment environment = context.getEnvironment();
        if (StringUtils.hasText(environment.getProperty("sample.inference.base-url"))) {
            return ConditionOutcome.noMatch("sample.inference.base-url is set");
        }
        if (!environment.getProperty("sample.provider.enabled", Boolean.class, true)) {
            return ConditionOutcome.noMatch("sample.provider.enabled is false");
        }
        return ConditionOutcome.match("no sample.inference.base-url is set");
    }
}
