package dev.inference.retry.springai.internal;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * What the proxy of {@code dev.inference.retry.springai.proxy} reads of a chat model's private shape:
 * whether it holds a Spring {@code RetryTemplate} in a field, as Spring AI's models on
 * {@code spring-ai-retry} do (read from Spring AI 2.0.1). No public way tells whether a model retries
 * its own exchanges; only the field's type is read, never its value, so a native image needs no hint.
 */
public final class SpringAiInternals {

    private static final String RETRY_TEMPLATE = "org.springframework.core.retry.RetryTemplate";

    private SpringAiInternals() {
    }

    /**
     * Returns the field in which a model class holds a Spring {@code RetryTemplate}, with which it
     * retries its own exchanges.
     *
     * @param type the model's class, whose superclasses are searched too
     * @return the first instance field of that type, or empty when there is none
     */
    public static Optional<Field> retryTemplateField(Class<?> type) {
        for (Class<?> declaring = type; declaring != null && declaring != Object.class;
                declaring = declaring.getSuperclass()) {
            for (Field field : declaring.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && field.getType().getName().equals(RETRY_TEMPLATE)) {
                    return Optional.of(field);
                }
            }
        }
        return Optional.empty();
    }
}
