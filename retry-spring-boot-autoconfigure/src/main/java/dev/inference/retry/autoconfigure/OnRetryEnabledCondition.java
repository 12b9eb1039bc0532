package dev.inference.retry.autoconfigure;

import dev.inference.retry.autoconfigure.settings.InferenceRetryProperties;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code inference.retry.enabled} is {@code false}.
 *
 * <p>The value is bound as a {@code Boolean}, as {@link InferenceRetryProperties} binds it, so a
 * value that is not a boolean ({@code maybe}, {@code ture}) fails startup with a binding error naming
 * the property. A property condition that compares the value with {@code "true"} would instead
 * switch retrying off for it, silently.
 */
final class OnRetryEnabledCondition extends SpringBootCondition {

    static final String PROPERTY = "inference.retry.enabled";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("Inference retry");
        boolean enabled = Binder.get(context.getEnvironment()).bind(PROPERTY, Boolean.class).orElse(true);
        return enabled ? ConditionOutcome.match(message.because(PROPERTY + " is not false"))
                : ConditionOutcome.noMatch(message.because(PROPERTY + " is false"));
    }
}
