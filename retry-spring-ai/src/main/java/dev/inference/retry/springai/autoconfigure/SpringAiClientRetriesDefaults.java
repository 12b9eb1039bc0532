package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.springai.ModelClientRetriesException;
import dev.inference.retry.springai.support.SpringAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider.ClientRetries;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Turns off the own retries of the clients of the Spring AI models that the starter retries, where the
 * application left the setting unset, so that one layer retries: each
 * {@linkplain dev.inference.retry.springai.support.SpringAiProvider.ClientRetries client-retries property}
 * of the {@linkplain SpringAiProviders providers}, such as {@code spring.ai.openai.chat.max-retries} or
 * {@code spring.ai.openai.embedding.max-retries}, is set to {@code 0}. Spring AI counts retries, not
 * attempts: {@code 0} is one attempt per exchange.
 *
 * <p>The defaults are the property source of lowest precedence, named {@value #PROPERTY_SOURCE_NAME},
 * so any value the application sets wins (and, if it asks for retries, fails startup with
 * {@link ModelClientRetriesException}). Nothing is set for a model that is not retried: when its
 * auto-configuration is not on the class path, when {@code inference.retry.enabled} or
 * {@code inference.retry.spring-ai.enabled} is {@code false}, or when its bean's entry under
 * {@code inference.retry.clients} has {@code enabled: false}. Common settings, such as
 * {@code spring.ai.openai.max-retries}, are never touched: they keep serving the models the starter
 * does not retry.
 */
public final class SpringAiClientRetriesDefaults implements EnvironmentPostProcessor, Ordered {

    /** The name of the property source that holds the defaults. */
    public static final String PROPERTY_SOURCE_NAME = "inferenceRetrySpringAiClientRetries";

    /** After the application's configuration files are read, so that their values are seen. */
    public static final int ORDER = ConfigDataEnvironmentPostProcessor.ORDER + 1;

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Binder binder = Binder.get(environment);
        if (!isTrueOrUnset(binder, "inference.retry.enabled")
                || !isTrueOrUnset(binder, "inference.retry.spring-ai.enabled")) {
            return;
        }
        ClassLoader classLoader = application.getClassLoader();
        Map<String, Object> defaults = new LinkedHashMap<>();
        for (SpringAiProvider provider : SpringAiProviders.ALL) {
            for (ClientRetries model : provider.clientRetries()) {
                if (ClassUtils.isPresent(model.autoConfiguration(), classLoader) && isRetried(binder, model.beanName())
                        && !binder.bind(model.property(), Bindable.of(String.class)).isBound()) {
                    defaults.put(model.property(), 0);
                }
            }
        }
        if (!defaults.isEmpty()) {
            environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, defaults));
        }
    }

    /**
     * Whether no entry under {@code inference.retry.clients} switches the bean off; entries are
     * matched to the bean as the auto-configuration matches them (relaxed names).
     */
    private static boolean isRetried(Binder binder, String beanName) {
        ConfigurationPropertyName bean = ConfigurationPropertyName.adapt(beanName, '.');
        Map<String, Object> clients = binder.bind("inference.retry.clients", Bindable.mapOf(String.class, Object.class))
            .orElse(Map.of());
        for (Map.Entry<String, Object> client : clients.entrySet()) {
            if (ConfigurationPropertyName.adapt(client.getKey(), '.').equals(bean)
                    && client.getValue() instanceof Map<?, ?> settings && isFalse(settings.get("enabled"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a switch is on or unset. A value that is not a boolean counts as on here: the
     * auto-configuration's binding reports it, with its origin, when the application starts.
     */
    private static boolean isTrueOrUnset(Binder binder, String property) {
        return !isFalse(binder.bind(property, Bindable.of(String.class)).orElse(null));
    }

    private static boolean isFalse(@Nullable Object value) {
        return value != null && "false".equalsIgnoreCase(value.toString().trim());
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
