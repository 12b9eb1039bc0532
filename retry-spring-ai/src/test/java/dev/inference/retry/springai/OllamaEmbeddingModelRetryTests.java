package dev.inference.retry.springai;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring AI 2.0.1's real Ollama embedding model, auto-configured as an application gets it, against a
 * provider speaking Ollama's wire format on a loopback port: its exchanges are retried beneath the bean.
 * Spring AI gives this model no retries of its own (its shared retry template serves the chat model
 * only), so a rate limit used to end an ingestion at once.
 */
class OllamaEmbeddingModelRetryTests extends EmbeddingModelRetryContract {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OllamaWire.EMBED);

    @Override
    protected ScriptedProvider provider() {
        return provider;
    }

    @Override
    protected String path() {
        return OllamaWire.EMBED;
    }

    @Override
    protected String beanName() {
        return "ollamaEmbeddingModel";
    }

    @Override
    protected ApplicationContextRunner runnerAgainst(int port) {
        return SpringAiStarters.ollama("http://127.0.0.1:" + port)
            .withPropertyValues("spring.ai.ollama.init.pull-model-strategy=never");
    }

    @Override
    protected ResponseDefinitionBuilder embeddings() {
        return OllamaWire.embeddings();
    }

    @Override
    protected ResponseDefinitionBuilder error(int status, String message) {
        return OllamaWire.error(status, message);
    }

    /** Spring AI's error handler for Ollama throws its transient exception for a 5xx status. */
    @Override
    protected Class<? extends RuntimeException> serverErrorException() {
        return TransientAiException.class;
    }

    @Override
    protected Class<? extends RuntimeException> badRequestException() {
        return NonTransientAiException.class;
    }
}
