package dev.inference.retry.springai.autoconfigure;

import dev.inference.retry.springai.anthropic.AnthropicProvider;
import dev.inference.retry.springai.google.GoogleProvider;
import dev.inference.retry.springai.ollama.OllamaProvider;
import dev.inference.retry.springai.openai.OpenAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider;
import java.util.List;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The Spring AI providers whose models the starter retries beneath their beans: the one place where a
 * provider is registered. Adding one is a package of its own (its {@link SpringAiProvider} description,
 * configuration, rebuild, failures and hints) and one entry here.
 */
final class SpringAiProviders {

    /** Every provider, in a fixed order (the order of their built-in failure translators). */
    static final List<SpringAiProvider> ALL = List.of(OpenAiProvider.DESCRIPTION, AnthropicProvider.DESCRIPTION,
            OllamaProvider.DESCRIPTION, GoogleProvider.DESCRIPTION);

    private SpringAiProviders() {
    }

    /** Imports each provider's configuration, which backs off by itself without the provider's classes. */
    static final class Configurations implements ImportSelector {

        @Override
        public String[] selectImports(AnnotationMetadata importingClassMetadata) {
            return ALL.stream().map(SpringAiProvider::configuration).toArray(String[]::new);
        }
    }
}
